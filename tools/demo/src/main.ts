import { createProgress } from '@plugboard/cli';
import descript from '@plugboard/connector-descript';
import { type ConnectorError, createExecutor, createTransport, type ExecuteRequest, type LogEntry, type Page } from '@plugboard/sdk';
import { startDescriptSimulator } from '@plugboard/simulator-descript';

/**
 * The Quick start demo: the Descript connector against its local simulator,
 * run through the runtime's executor as the platform runs it, step by step as
 * a user follows it. Each step prints the `plugboard` command that does the same.
 */

const simulator = await startDescriptSimulator({ port: 0, seed: 7, size: 25, jobDurationMs: 4_000 });
const transport = createTransport();
const say = (text = '') => process.stdout.write(`${text}\n`);
const executor = createExecutor({
  connectors: [descript],
  resolveConnection: (id) => ({ id, baseUrl: simulator.url }),
  resolveCredential: () => simulator.token,
  transport,
  log: (entry: LogEntry) => {
    if (entry.level === 'warn' || entry.level === 'error') say(`   (${entry.level}) ${entry.message}`);
  },
});

function step(title: string, action: string, input: unknown, flags = ''): void {
  say(`\n${title}`);
  say(`   $ plugboard run descript ${action} --input '${JSON.stringify(input)}'${flags}`);
}

type Request = Omit<ExecuteRequest, 'connectorKey' | 'connectionId'>;

/** Runs an action; returns a source's records, or a destination's result as the one record. */
async function run(request: Request): Promise<Record<string, any>[]> {
  const records: unknown[] = [];
  const outcome = await executor.execute({
    connectorKey: 'descript',
    connectionId: 'demo',
    onPage: (page: Page) => void records.push(...page.records),
    ...request,
  });
  return (outcome.direction === 'destination' ? [outcome.result] : records) as Record<string, any>[];
}

/** Polls jobs.get until the job stops: a progress bar on a terminal, and a line per stage. */
async function follow(jobId: string): Promise<Record<string, any>> {
  step('   Following the job', 'jobs.get', { job_id: jobId });
  const progress = createProgress(process.stderr);
  let last = '';
  for (;;) {
    const [job] = await run({
      action: 'jobs.get',
      input: { job_id: jobId },
      onProgress: (event) => {
        if (event.type === 'progress') progress.update(event);
      },
    });
    const line = job!.job_state === 'running' ? `running: ${job!.progress?.label ?? ''}` : job!.job_state;
    if (line !== last) {
      progress.done();
      say(`   ${line}`);
      last = line;
    }
    if (job!.job_state === 'stopped' || job!.job_state === 'cancelled') {
      progress.done();
      return job!;
    }
    await new Promise((resolve) => setTimeout(resolve, 400));
  }
}

try {
  say(`Descript simulator on ${simulator.url}`);
  say(`The credential comes from the environment: export PLUGBOARD_CREDENTIAL=${simulator.token}`);
  say(`Every command below also takes --base-url ${simulator.url}`);

  step('1. Check the token', 'status.get', {});
  say(`   ${JSON.stringify((await run({ action: 'status.get', input: {} }))[0])}`);

  const media = {
    project_name: 'Quick start interview',
    add_media: { 'interview.mp4': { url: 'https://media.example.com/interview.mp4?duration=95' } },
  };
  step('2. Import media in production: billable, so it needs an approval of exactly this run', 'media_imports.create', media, ' --environment production');
  const refused = (await run({ action: 'media_imports.create', input: media, environment: 'production' }).catch((error: unknown) => error)) as ConnectorError & {
    digest: string;
  };
  say(`   ${refused.code}: an approver other than the requester must quote ${refused.digest}`);
  const selfApproved = { digest: refused.digest, requestedBy: 'ada@example.com', decidedBy: 'ada@example.com', decision: 'approved', expiresAt: null } as const;
  say(`   $ ... --approval '${JSON.stringify(selfApproved)}'`);
  await run({ action: 'media_imports.create', input: media, environment: 'production', approval: selfApproved }).catch((error: ConnectorError) =>
    say(`   ${error.code}: ${error.message.split('; ')[0]}`),
  );

  step('3. The same import in sandbox (sent once, never retried automatically)', 'media_imports.create', media);
  const [receipt] = await run({ action: 'media_imports.create', input: media });
  say(`   ${JSON.stringify(receipt)}`);
  const imported = await follow(receipt!.job_id);
  say(`   result: ${JSON.stringify(imported.result)}`);

  const edit = { project_id: receipt!.project_id, prompt: 'Remove filler words and add studio sound' };
  step('4. Run an agent edit on the new project', 'agent_edits.create', edit);
  const [agent] = await run({ action: 'agent_edits.create', input: edit });
  say(`   ${JSON.stringify(agent)}`);
  const edited = await follow(agent!.job_id);
  say(`   result: ${JSON.stringify(edited.result)}`);

  const transcript = { project_id: receipt!.project_id, format: 'srt' };
  step('5. The transcript as SRT', 'transcripts.get', transcript);
  const [exported] = await run({ action: 'transcripts.get', input: transcript });
  say(`   ${exported!.file_name}:`);
  say(String(exported!.text).trimEnd().replace(/^/gm, '   '));
} finally {
  await transport.close();
  await simulator.close();
}
