import { type ApprovalRequiredError, type ConnectorError, createTransport, type LogEntry, readAll, writeAction } from '@plugboard/sdk';
import { tasks } from './tasks-connector.js';
import { startTasksServer } from './tasks-server.js';

/** The Quick start demo: the example connector against a local server, step by step. */

const server = await startTasksServer();
const transport = createTransport();
const say = (text: string) => process.stdout.write(`${text}\n`);
const connection = { id: 'demo', baseUrl: server.url };
const credential = () => server.token;
const log = (entry: LogEntry) => say(`   (${entry.level}) ${entry.message}${entry.code ? `: ${String(entry.code)}` : ''}`);

try {
  say(`Local task tracker on ${server.url}\n`);

  say('1. tasks.list, first run (pages of 5; the provider answers the second page with 429, Retry-After: 1):');
  const first = await readAll(tasks, 'tasks.list', { input: {}, connection, credential, transport, log });
  say(`   ${first.records.length} tasks in ${first.pages} pages; checkpoint ${JSON.stringify(first.checkpoint)}`);

  say('2. tasks.list, second run from that checkpoint:');
  const second = await readAll(tasks, 'tasks.list', { input: {}, connection, credential, transport, checkpoint: first.checkpoint });
  say(`   ${second.records.length} new tasks: nothing is read twice`);

  say('3. reminders.create with a bad phone number is refused before any request:');
  await writeAction(tasks, 'reminders.create', { input: { task_id: 't2', phone: '0821234567' }, connection, credential, transport }).catch(
    (error: ConnectorError) => say(`   ${error.code}: ${error.message}`),
  );

  say('4. reminders.create in production needs an approval bound to a digest of exactly what will run:');
  const reminder = { task_id: 't2', phone: '+27821234567' };
  await writeAction(tasks, 'reminders.create', { input: reminder, connection, credential, transport, environment: 'production' }).catch(
    (error: ApprovalRequiredError) => say(`   ${error.code}: review digest ${error.shortDigest}`),
  );

  say('5. reminders.create in sandbox (billable: sent once, never retried):');
  say(`   ${JSON.stringify(await writeAction(tasks, 'reminders.create', { input: reminder, connection, credential, transport }))}`);

  say('6. the SMS credits are spent: a typed quota error, not retried:');
  await writeAction(tasks, 'reminders.create', { input: reminder, connection, credential, transport }).catch((error: ConnectorError) =>
    say(`   ${JSON.stringify(error.toPlatformError('/demo'))}`),
  );
} finally {
  await transport.close();
  await server.close();
}
