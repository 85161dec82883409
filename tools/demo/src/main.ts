import { type Connector, type ConnectorError, createTransport, type LogEntry, readAll, type RunOptions, writeAction } from '@plugboard/sdk';
import { createProgress } from '@plugboard/cli';
import descript from '@plugboard/connector-descript';
import { startDescriptSimulator } from '@plugboard/simulator-descript';

/**
 * The Quick start demo: the Descript connector against its local simulator,
 * step by step as a user follows it. Each step prints the `plugboard` command
 * that does the same from a shell.
 */

const simulator = await startDescriptSimulator({ port: 0, seed: 7, size: 25, jobDurationMs: 4_000 });
const transport = createTransport();
const say = (text = '') => process.stdout.write(`${text}\n`);
const log = (entry: LogEntry) => {
  if (entry.level === 'warn' || entry.level === 'error') say(`   (${entry.level}) ${entry.message}`);
};
const base: Omit<RunOptions, 'input'> = {
  connection: { id: 'demo', baseUrl: simulator.url },
  credential: () => simulator.token,
  transport,
  log,
};

function step(title: string, action: string, input: unknown, flags = ''): void {
  say(`\n${title}`);
  say(`   $ plugboard run descript ${action} --input '${JSON.stringify(input)}'${flags}`);
}

async function read(action: string, input: unknown, options: Partial<RunOptions> = {}) {
  return (await readAll(descript, action, { ...base, ...options, input })).records;
}

/** Polls jobs.get until the job stops: a progress bar on a terminal, and a line per stage. */
async function follow(connector: Connector, jobId: string): Promise<Record<string, unknown>> {
  step('   Following the job', 'jobs.get', { job_id: jobId });
  const progress = createProgress(process.stderr);
  let last = '';
  for (;;) {
    const [job] = (await readAll(connector, 'jobs.get', { ...base, input: { job_id: jobId }, onProgress: (event) => progress.update(event) })).records as Record<string, any>[];
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
  say(`   ${JSON.stringify((await read('status.get', {}))[0])}`);

  const media = {
    project_name: 'Quick start interview',
    add_media: { 'interview.mp4': { url: 'https://media.example.com/interview.mp4?duration=95' } },
  };
  step('2. Import media in production: refused until someone else approves exactly this run', 'media_imports.create', media, ' --environment production');
  await writeAction(descript, 'media_imports.create', { ...base, input: media, environment: 'production' }).catch((error: ConnectorError & { shortDigest?: string }) =>
    say(`   ${error.code}: an approval must quote digest ${error.shortDigest} (billable, never retried automatically)`),
  );

  step('3. The same import in sandbox', 'media_imports.create', media);
  const receipt = (await writeAction(descript, 'media_imports.create', { ...base, input: media })) as { job_id: string; project_id: string };
  say(`   ${JSON.stringify(receipt)}`);
  const imported = await follow(descript, receipt.job_id);
  say(`   result: ${JSON.stringify(imported.result)}`);

  const edit = { project_id: receipt.project_id, prompt: 'Remove filler words and add studio sound' };
  step('4. Run an agent edit on the new project', 'agent_edits.create', edit);
  const agent = (await writeAction(descript, 'agent_edits.create', { ...base, input: edit })) as { job_id: string };
  say(`   ${JSON.stringify(agent)}`);
  const edited = await follow(descript, agent.job_id);
  say(`   result: ${JSON.stringify(edited.result)}`);

  const transcript = { project_id: receipt.project_id, format: 'srt' };
  step('5. The transcript as SRT', 'transcripts.get', transcript);
  const [exported] = (await read('transcripts.get', transcript)) as { file_name: string; text: string }[];
  say(`   ${exported!.file_name}:`);
  say(exported!.text.trimEnd().replace(/^/gm, '   '));
} finally {
  await transport.close();
  await simulator.close();
}
