import { type ApprovalBinding, approvalDigest, type PreparedAction } from '@plugboard/sdk/host';
import { PluginKilledError } from './plugin-killed.js';
import type { PluginPort } from './plugin-port.js';
import type { WirePlan } from './protocol.js';

/** A prepared run whose action's code lives in a plugin's process; the digest is the host's own. */
export class RemotePlan implements PreparedAction {
  private digest: ApprovalBinding | undefined;
  readonly connector: { key: string; version: string };
  readonly action: WirePlan['action'];
  readonly input: unknown;
  readonly connection: { id: string };
  /** The id of the auth scheme the plugin resolved the connection to. */
  readonly scheme: string | undefined;
  /** The host's word on where the connection's OAuth2 endpoints are (`ConnectionInput.authBaseUrl`), never the plugin's. */
  readonly authBaseUrl: string | undefined;
  readonly environment: WirePlan['environment'];
  readonly checkpoint: unknown;
  readonly checkpointVersion: number;
  readonly needsApproval: boolean;

  readonly id: string;

  constructor(
    readonly owner: PluginPort,
    plan: WirePlan,
    authBaseUrl?: string,
  ) {
    this.id = plan.id;
    this.connector = { key: owner.description.key, version: owner.description.connectorVersion };
    // The plugin's word on its provider's deduplication bears only on its own keys; anything but a name is none.
    const { idempotencyHeader, ...action } = plan.action;
    this.action = typeof idempotencyHeader === 'string' ? { ...action, idempotencyHeader } : action;
    this.input = plan.input;
    this.connection = { id: plan.connection.id };
    this.scheme = typeof plan.connection.scheme === 'string' ? plan.connection.scheme : undefined;
    this.authBaseUrl = authBaseUrl;
    this.environment = plan.environment;
    this.checkpoint = plan.checkpoint;
    // Anything but a version number is version 1: a plugin's word bears only on its own checkpoints.
    const version = plan.checkpointVersion;
    this.checkpointVersion = Number.isSafeInteger(version) && version! >= 1 ? version! : 1;
    this.needsApproval = plan.needsApproval === true;
  }

  get binding(): ApprovalBinding {
    this.digest ??= approvalDigest({
      connector: this.connector,
      action: this.action.key,
      connectionId: this.connection.id,
      environment: this.environment,
      input: this.input,
    });
    return this.digest;
  }
}

/** What the host asked a plugin's process to prepare. */
export interface AskedPlan {
  action: string;
  connectionId: string;
  environment: string;
  /** Kept with the plan for the host's token lifecycle. */
  authBaseUrl?: string;
}

/**
 * The plugin's prepared run, held to what the host asked for: the digest an approver sees and the
 * idempotency key and checkpoint stream are made of its action, connection and environment. A
 * plugin that prepared another is killed.
 */
export function heldPlan(port: PluginPort, plan: WirePlan, asked: AskedPlan): RemotePlan {
  const kept =
    plan.action?.key === asked.action &&
    plan.connection?.id === asked.connectionId &&
    plan.environment === asked.environment;
  if (
    !kept ||
    typeof plan.id !== 'string' ||
    (plan.action.direction !== 'source' && plan.action.direction !== 'destination')
  ) {
    const message = 'prepared a run other than the one the host asked for; its process was killed';
    port.kill('forged', message);
    throw new PluginKilledError(port.plugin, 'forged', message, port.log);
  }
  return new RemotePlan(port, plan, asked.authBaseUrl);
}
