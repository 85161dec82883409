/** Where a run goes: a sandbox, which may reach loopback simulators, or production. */
export type Environment = 'sandbox' | 'production';
