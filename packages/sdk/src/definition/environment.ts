/** Where a run happens: `sandbox` may also reach loopback, where the simulators listen; an action with `approval: 'production'` needs one only in `production`. */
export type Environment = 'sandbox' | 'production';
