import type { CatalogueOperation } from '../entry.js';
import { type ConnectorChange, type OperationChange, ofOperation } from './rules.js';

/**
 * What one operation declares of itself, compared between two versions: its mode and data
 * type, whether it needs approval, whether it is billable, whether it sends the run's
 * idempotency key, and its effects.
 */

function modeChange(at: string, was: CatalogueOperation, now: CatalogueOperation): ConnectorChange | undefined {
  if (was.mode === now.mode) return undefined;
  return {
    kind: 'mode-changed',
    operation: at,
    from: was.mode,
    to: now.mode,
    message: `operation '${at}' changed mode from ${was.mode} to ${now.mode}`,
  };
}

function entityChange(at: string, was: CatalogueOperation, now: CatalogueOperation): ConnectorChange | undefined {
  if (was.entity === now.entity) return undefined;
  return {
    kind: 'entity-changed',
    operation: at,
    from: String(was.entity),
    to: String(now.entity),
    message: `operation '${at}' changed entity from ${String(was.entity)} to ${String(now.entity)}`,
  };
}

/** Approval dropped, or asked only before production where it was always asked, turns it off; the reverse turns it on. */
function approvalChange(at: string, was: CatalogueOperation, now: CatalogueOperation): ConnectorChange | undefined {
  if (was.approvalRequired && !now.approvalRequired) {
    return {
      kind: 'approval-turned-off',
      operation: at,
      from: was.approval ?? 'required',
      to: now.approval ?? 'none',
      message: `operation '${at}' no longer requires approval`,
    };
  }
  if (was.approval === 'always' && now.approval === 'production') {
    return {
      kind: 'approval-turned-off',
      operation: at,
      from: 'always',
      to: 'production',
      message: `operation '${at}' requires approval only before production now (was always)`,
    };
  }
  if (!was.approvalRequired && now.approvalRequired) {
    return {
      kind: 'approval-turned-on',
      operation: at,
      from: was.approval ?? 'none',
      to: now.approval ?? 'required',
      message: `operation '${at}' requires approval now`,
    };
  }
  if (was.approval === 'production' && now.approval === 'always') {
    return {
      kind: 'approval-turned-on',
      operation: at,
      from: 'production',
      to: 'always',
      message: `operation '${at}' requires approval always now (was before production only)`,
    };
  }
  return undefined;
}

function billableChange(at: string, was: CatalogueOperation, now: CatalogueOperation): ConnectorChange | undefined {
  if (was.billable !== true && now.billable === true) {
    return {
      kind: 'billable-turned-on',
      operation: at,
      from: 'not billable',
      to: 'billable',
      message: `operation '${at}' is billable now`,
    };
  }
  if (was.billable === true && now.billable !== true) {
    return {
      kind: 'billable-turned-off',
      operation: at,
      from: 'billable',
      to: 'not billable',
      message: `operation '${at}' is no longer billable`,
    };
  }
  return undefined;
}

function idempotencyKeyChange(
  at: string,
  was: CatalogueOperation,
  now: CatalogueOperation,
): ConnectorChange | undefined {
  const header = { was: was.idempotencyHeader, now: now.idempotencyHeader };
  if ((header.was === undefined) === (header.now === undefined)) return undefined;
  return {
    kind: header.now === undefined ? 'idempotency-key-dropped' : 'idempotency-key-sent',
    operation: at,
    from: header.was ?? 'none',
    to: header.now ?? 'none',
    message:
      header.now === undefined
        ? `operation '${at}' no longer sends the run's idempotency key to the provider (was in ${header.was})`
        : `operation '${at}' sends the run's idempotency key to the provider in ${header.now}`,
  };
}

function effectText(effect: NonNullable<CatalogueOperation['effect']>): string {
  if (!effect.writes) return 'reads only';
  const facts = [effect.idempotent ? 'idempotent' : 'not idempotent', effect.destructive ? 'destructive' : ''];
  return `writes (${facts.filter(Boolean).join(', ')})`;
}

/**
 * The effect changes of one operation. Reading only or writing is the first fact: when it
 * changes, that one change is reported (a read is idempotent and not destructive by nature);
 * else idempotent and destructive are compared. An entry from before effects were published
 * says nothing to compare.
 */
function effectChanges(was: CatalogueOperation, now: CatalogueOperation): OperationChange[] {
  if (was.effect === undefined || now.effect === undefined) return [];
  const from = effectText(was.effect);
  const to = effectText(now.effect);
  if (was.effect.writes !== now.effect.writes) {
    return [
      { kind: now.effect.writes ? 'writes-turned-on' : 'writes-turned-off', from, to, text: `${to} now (was ${from})` },
    ];
  }
  const changes: OperationChange[] = [];
  if (was.effect.idempotent !== now.effect.idempotent) {
    const kind = now.effect.idempotent ? 'idempotent-turned-on' : 'idempotent-turned-off';
    changes.push({ kind, from, to, text: now.effect.idempotent ? 'is idempotent now' : 'is no longer idempotent' });
  }
  if (was.effect.destructive !== now.effect.destructive) {
    const kind = now.effect.destructive ? 'destructive-turned-on' : 'destructive-turned-off';
    changes.push({ kind, from, to, text: now.effect.destructive ? 'is destructive now' : 'is no longer destructive' });
  }
  return changes;
}

/** The changes of what an operation declares of itself, in the order the diff reports them. */
export function flagChanges(was: CatalogueOperation, now: CatalogueOperation): ConnectorChange[] {
  const at = now.key;
  const changes = [
    modeChange(at, was, now),
    entityChange(at, was, now),
    approvalChange(at, was, now),
    billableChange(at, was, now),
    idempotencyKeyChange(at, was, now),
  ].filter((change) => change !== undefined);
  return [...changes, ...effectChanges(was, now).map((change) => ofOperation(at, change))];
}
