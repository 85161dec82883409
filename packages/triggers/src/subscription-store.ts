import { createHash, randomUUID } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { TriggerWebhookSettings } from './config-parts.js';

/**
 * The provider subscriptions the receiver keeps in its state folder, one trigger each, so that a
 * restart neither subscribes again nor forgets to unsubscribe a trigger that left the
 * configuration:
 *
 * - `webhooks/<digest of the triggerId>.json`: what is known of the subscription, never its secret;
 * - `webhooks/<digest of the triggerId>.secret`: its signing secret alone, mode 0600.
 *
 * Each file is written whole and flushed under a temporary name (mode 0600), then renamed over
 * its name: a reader never sees half a file. The secret is written before the record that makes
 * the subscription known.
 */

/** A kept subscription: whose it is, where the provider posts, its id and end. */
export interface KeptSubscription {
  triggerId: string;
  /** The connector, its trigger and the connection it was subscribed on (non-secret settings, rule 10). */
  webhook: TriggerWebhookSettings;
  environment: 'sandbox' | 'production';
  /** The delivery URL the provider was given. */
  url: string;
  id: string;
  expiresAt: string | null;
  subscribedAt: string;
  /** When it was last renewed (or made again); null when never. */
  renewedAt: string | null;
}

export interface SubscriptionStore {
  /** Every kept subscription, in the order of their triggerIds. */
  list(): Promise<KeptSubscription[]>;
  /** The subscription's secret, or undefined when none is kept. */
  secret(triggerId: string): Promise<string | undefined>;
  /** Keeps the subscription, with its secret when it has a new one. */
  keep(subscription: KeptSubscription, secret?: string): Promise<void>;
  /** Forgets the subscription and its secret. */
  forget(triggerId: string): Promise<void>;
}

/** Where the subscriptions are kept, under a receiver's state folder. */
export const WEBHOOKS_FOLDER = 'webhooks';

const keyOf = (triggerId: string) => createHash('sha256').update(triggerId).digest('hex').slice(0, 32);

async function writeWhole(file: string, text: string): Promise<void> {
  const temporary = `${file}.${randomUUID()}.tmp`;
  const handle = await open(temporary, 'wx', 0o600);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.datasync();
  } finally {
    await handle.close();
  }
  await rename(temporary, file);
}

async function removeIfThere(file: string): Promise<void> {
  await unlink(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
}

async function readIfThere(file: string): Promise<string | undefined> {
  return readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
}

export function subscriptionStore(stateDir: string): SubscriptionStore {
  const folder = join(stateDir, WEBHOOKS_FOLDER);
  const file = (triggerId: string, extension: 'json' | 'secret') => join(folder, `${keyOf(triggerId)}.${extension}`);
  return {
    async list() {
      const names = await readdir(folder).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return [];
        throw error;
      });
      const kept: KeptSubscription[] = [];
      for (const name of names.filter((entry) => entry.endsWith('.json')))
        kept.push(JSON.parse(await readFile(join(folder, name), 'utf8')) as KeptSubscription);
      return kept.sort((a, b) => (a.triggerId < b.triggerId ? -1 : a.triggerId > b.triggerId ? 1 : 0));
    },
    secret: (triggerId) => readIfThere(file(triggerId, 'secret')),
    async keep(subscription, secret) {
      await mkdir(folder, { recursive: true, mode: 0o700 });
      if (secret !== undefined) await writeWhole(file(subscription.triggerId, 'secret'), secret);
      await writeWhole(file(subscription.triggerId, 'json'), JSON.stringify(subscription));
    },
    async forget(triggerId) {
      // The record first: a subscription half forgotten is one the next start no longer knows.
      await removeIfThere(file(triggerId, 'json'));
      await removeIfThere(file(triggerId, 'secret'));
    },
  };
}

/** The subscriptions kept in a receiver's state folder (never their secrets): a host loads their connectors to end them. */
export function listSubscriptions(stateDir: string): Promise<KeptSubscription[]> {
  return subscriptionStore(stateDir).list();
}
