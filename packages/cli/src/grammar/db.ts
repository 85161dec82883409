import type { CommandSpec } from './command-spec.js';

const MIGRATE: CommandSpec = {
  name: 'migrate',
  summary: "bring a PostgreSQL database up to this version's schema",
  description:
    'Applies each migration the database lacks, in order, one transaction each under an advisory lock (several processes may run it at once: one applies, the others find nothing left), and prints {"server", "applied": [{"version", "name"}], "version"} as one JSON line. A database migrated by a newer Plugboard is refused.',
  options: [
    {
      flags: '--postgres <url>',
      description: 'the database, postgres://USER:PASSWORD@HOST:PORT/DATABASE (default: $PLUGBOARD_POSTGRES_URL)',
    },
  ],
  examples: ['plugboard db migrate --postgres postgres://plugboard@db.internal:5432/plugboard'],
  load: async () => (await import('../commands/db.js')).migrateCommand,
};

export const DB: CommandSpec = {
  name: 'db',
  summary: "the PostgreSQL database a fleet's workers keep their state in",
  description:
    'The schema of the PostgreSQL state (checkpoints, idempotency keys, sealed token sets) that workers on many machines share.',
  subcommands: [MIGRATE],
};
