import type { Clock } from '../clock.js';
import { AuthenticationError, ConnectorError, CredentialsExpiredError, ProviderUnavailableError } from '../errors.js';
import type { Reach } from '../http/stages/reach.js';
import type { Logger } from '../log.js';
import type { Redactor } from '../secrets.js';
import {
  type CredentialStore,
  type StoredTokenSet,
  type StoredTokens,
  type TokenSet,
  type TokenSource,
  tokenExpired,
} from '../tokens.js';
import type { RefreshLease } from './lease.js';
import { grantRefused, isRefused, markRefused, refreshDigest } from './refused-grant.js';
import {
  clientCredentialsGrant,
  type Granted,
  type OAuth2Scheme,
  refreshGrant,
  type TokenClient,
} from './token-requests.js';
import { type TokenRequests, tokenFetch } from './token-send.js';

/**
 * One connection's OAuth2 tokens, shared by every run of a transport (lifecycles.ts keeps one
 * per connection): the token set is refreshed ahead of its expiry and once after a 401, by one
 * refresh at a time in the process (every waiting request shares its promise) and across
 * processes (the lease, then the store read again: another process may have refreshed). A
 * rotated refresh token is written to the store (compare-and-set) before any request gets the
 * new access token. A refresh whose answer never came is not sent again while the store
 * still holds the refresh token it carried: that token may have been spent. A refresh token the
 * provider refused is never sent again (refused-grant.ts): runs on its set fail at once until
 * the store holds another set.
 *
 * The lifecycle is what the tokens stage asks (a `TokenSource`); it sends no request through the
 * stages itself: the way token requests go is handed to it (`TokenRun.send`, the pipeline's
 * token-request composition).
 */

/** What the lifecycle needs of whoever asks for tokens: how token requests go, and for whom. */
export interface TokenRun {
  /** How the connection's token requests are sent (`tokenRequestSend` in pipeline.ts). */
  send: TokenRequests;
  /** Every token set granted is added to it, and token errors are redacted with it. */
  redactor: Redactor;
  /** Where a warning of the lifecycle goes (a refusal the store did not take). */
  log: Logger;
  scheme: OAuth2Scheme;
  clientId: string;
  clientSecret: string | undefined;
  /** The token set the host's resolver gave, stored when the store holds none yet. */
  initial: TokenSet | undefined;
  /** `connector 'x' connection 'y'`, for errors. */
  subject: string;
}

export interface LifecycleSettings {
  connectionId: string;
  store: CredentialStore;
  lease: RefreshLease;
  /** The lease's name: one per connector and connection. */
  leaseName: string;
  clock: Clock;
  /** Fixed by the host, or undefined: the larger of 60 s and a tenth of the token's lifetime. */
  refreshMarginMs: number | undefined;
  tokenTimeoutMs: number;
}

const DEFAULT_MARGIN_MS = 60_000;
/** How often a write-back that lost a compare-and-set is tried again against what the store holds then. */
const WRITE_ATTEMPTS = 3;

export class ConnectionTokens {
  private known: StoredTokens | undefined;
  /** The lifetime of the known access token, when known: from its grant, or another process's just now. */
  private lifetimeMs: number | undefined;
  private loading: Promise<StoredTokens | undefined> | undefined;
  private refreshing: Promise<TokenSet> | undefined;
  /** The refresh token of a refresh whose answer never came. */
  private unconfirmed: string | undefined;
  /** The SHA-256 digest of the refresh token the provider refused last (`invalid_grant`). */
  private refusedRefresh: string | undefined;
  /**
   * A set the provider granted that the store did not take: its refresh token may be the only
   * one left unspent, so it is written before anything else is sent, never asked for again.
   */
  private unwritten: Granted | undefined;

  constructor(private readonly settings: LifecycleSettings) {}

  /** The token source of one run. */
  source(run: TokenRun): TokenSource {
    return {
      current: () => this.current(run),
      refreshAfter401: (used) => this.afterRefusal(run, used),
    };
  }

  private async current(run: TokenRun): Promise<TokenSet> {
    let known = this.known;
    // One read of the store for the whole process, and one more by every run while the set's
    // refresh token stands refused (a new set may have been written); a failed one is tried
    // again by the next request.
    if (known === undefined || isRefused(known.tokens, this.refusedRefresh))
      known = await (this.loading ??= this.load(run).finally(() => (this.loading = undefined)));
    if (known && isRefused(known.tokens, this.refusedRefresh)) throw grantRefused(run.subject);
    if (known && this.fresh(known.tokens)) return known.tokens;
    return this.renew(run, known?.tokens, false);
  }

  private async afterRefusal(run: TokenRun, used: TokenSet): Promise<TokenSet> {
    const known = this.known?.tokens;
    // Another request of this process refreshed since `used` was sent.
    if (known && known.accessToken !== used.accessToken && this.fresh(known)) return known;
    return this.renew(run, used, true);
  }

  /** The store's entry, the resolver's token set written there first when it holds none. */
  private async load(run: TokenRun): Promise<StoredTokens | undefined> {
    const { store, connectionId } = this.settings;
    let entry = await store.read(connectionId);
    if (!entry && run.initial && (await store.compareAndSet(connectionId, undefined, run.initial)))
      entry = { version: 1, tokens: run.initial };
    entry ??= await store.read(connectionId);
    // Its lifetime is not known: it may be well into it.
    if (entry) this.adopt(entry, undefined);
    return entry;
  }

  private adopt(entry: StoredTokens, lifetimeMs: number | undefined): void {
    this.known = entry;
    this.lifetimeMs = lifetimeMs;
  }

  /** Not yet within the refresh margin of its expiry (an unknown expiry: until a 401 says otherwise). */
  private fresh(tokens: TokenSet, lifetimeMs = this.lifetimeMs): boolean {
    if (tokens.expiresAt === undefined) return true;
    return tokens.expiresAt - this.marginMs(lifetimeMs) > this.settings.clock.now();
  }

  /** The host's margin, or the larger of 60 s and a tenth of the lifetime; never over half of it, so a new token is used. */
  private marginMs(lifetime: number | undefined): number {
    const wanted = this.settings.refreshMarginMs ?? Math.max(DEFAULT_MARGIN_MS, (lifetime ?? 0) / 10);
    return lifetime === undefined || lifetime <= 0 ? wanted : Math.min(wanted, lifetime / 2);
  }

  /** One refresh for the whole process; a token still valid is kept when the endpoint is down. */
  private async renew(run: TokenRun, replacing: TokenSet | undefined, refused: boolean): Promise<TokenSet> {
    if (!this.refreshing) {
      const refresh = this.refresh(run, replacing, refused);
      this.refreshing = refresh;
      refresh.then(
        () => (this.refreshing = undefined),
        () => (this.refreshing = undefined),
      );
    }
    try {
      return await this.refreshing;
    } catch (error) {
      const stillValid = replacing?.expiresAt !== undefined && replacing.expiresAt > this.settings.clock.now();
      if (!refused && stillValid && error instanceof ConnectorError && error.retryable) return replacing!;
      throw error;
    }
  }

  private async refresh(run: TokenRun, replacing: TokenSet | undefined, refused: boolean): Promise<TokenSet> {
    const { lease, leaseName, store, connectionId } = this.settings;
    // Another process (or the host's sign-in) may refresh while this one waits for the lease.
    let entry: StoredTokens | undefined;
    const settled = async () => {
      entry = await store.read(connectionId);
      if (entry === undefined || entry.tokens.accessToken === replacing?.accessToken) return false;
      // Just written: what is left of it is about its lifetime.
      const { expiresAt } = entry.tokens;
      return this.fresh(entry.tokens, expiresAt === undefined ? undefined : expiresAt - this.settings.clock.now());
    };
    const release = await lease.take(leaseName, settled);
    try {
      if (!release || (await settled())) {
        // Written moments ago: what is left of it is about its lifetime.
        const { expiresAt } = entry!.tokens;
        this.adopt(entry!, expiresAt === undefined ? undefined : expiresAt - this.settings.clock.now());
        this.unwritten = undefined;
        return entry!.tokens;
      }
      const granted = this.unwritten ?? (await this.requestOrMark(run, entry, refused));
      this.unwritten = granted;
      await this.write(entry, granted, run.subject);
      this.unwritten = undefined;
      return granted.tokens;
    } finally {
      await release?.();
    }
  }

  /** A token request; a refusal of the refresh token is marked on the store's entry, read under the lease. */
  private async requestOrMark(run: TokenRun, entry: StoredTokens | undefined, refused: boolean): Promise<Granted> {
    try {
      return await this.request(run, entry?.tokens ?? this.known?.tokens, refused);
    } catch (error) {
      if (error instanceof CredentialsExpiredError && entry && this.refusedRefresh !== undefined) {
        const marked = await markRefused(
          this.settings.store,
          this.settings.connectionId,
          entry,
          this.refusedRefresh,
          run,
        );
        if (marked) this.adopt(marked, this.lifetimeMs);
      }
      throw error;
    }
  }

  private async request(run: TokenRun, current: StoredTokenSet | undefined, refused: boolean): Promise<Granted> {
    const reach: Reach = { mayHaveArrived: false };
    const client: TokenClient = {
      scheme: run.scheme,
      clientId: run.clientId,
      clientSecret: run.clientSecret,
      fetch: tokenFetch(run.send(this.settings.tokenTimeoutMs, reach), this.settings.clock),
      clock: this.settings.clock,
      redactor: run.redactor,
      subject: run.subject,
    };
    if (run.scheme.type === 'oauth2_client_credentials') return clientCredentialsGrant(client);
    const refreshToken = current?.refreshToken;
    if (refreshToken === undefined) {
      if (!refused) throw tokenExpired(run.subject);
      throw new AuthenticationError(
        `${run.subject}: the provider refused the access token (401) and there is no refresh token to renew it; sign in again`,
        { code: 'credentials_changed', status: 401 },
      );
    }
    if (isRefused(current, this.refusedRefresh)) {
      this.refusedRefresh = refreshDigest(refreshToken);
      throw grantRefused(run.subject);
    }
    if (refreshToken === this.unconfirmed)
      throw new ProviderUnavailableError(
        `${run.subject}: an earlier token refresh got no answer and the store still holds the refresh token it sent, which the provider may have spent; nothing was sent (try again later, or sign in again if this persists)`,
        { code: 'token_refresh_unconfirmed' },
      );
    try {
      const granted = await refreshGrant(client, refreshToken);
      this.unconfirmed = undefined;
      return granted;
    } catch (error) {
      if (error instanceof CredentialsExpiredError) this.refusedRefresh = refreshDigest(refreshToken);
      else if (reach.mayHaveArrived && !(error instanceof ConnectorError && error.status !== undefined))
        this.unconfirmed = refreshToken;
      throw error;
    }
  }

  /** The new token set into the store, before any request may use it. */
  private async write(read: StoredTokens | undefined, granted: Granted, subject: string): Promise<void> {
    const { store, connectionId } = this.settings;
    let expected = read;
    for (let attempt = 1; ; attempt += 1) {
      let written: boolean;
      try {
        written = await store.compareAndSet(connectionId, expected, granted.tokens);
      } catch (error) {
        throw new ProviderUnavailableError(
          `${subject}: the provider granted a new token set and the credential store did not take it; this process keeps it and writes it before anything else is sent`,
          { code: 'credential_store_unavailable', cause: error },
        );
      }
      if (written) {
        this.adopt({ version: (expected?.version ?? 0) + 1, tokens: granted.tokens }, granted.lifetimeMs);
        return;
      }
      // Written meanwhile (a lease outlived, a sign-in): this set is the newest the provider issued.
      if (attempt === WRITE_ATTEMPTS)
        throw new ProviderUnavailableError(
          `${this.settings.leaseName}: the credential store kept changing while a refreshed token set was written back`,
          { code: 'credential_store_conflict' },
        );
      expected = await store.read(connectionId);
    }
  }
}
