/**
 * Variables a command gets when `AW_TOOL_ENV_ALLOW` is not set: what a shell needs to find
 * programs and speak the locale, none of which carries a secret.
 */
export const DEFAULT_TOOL_ENV_ALLOW: readonly string[] = [
  'PATH',
  'HOME',
  'LANG',
  'LC_ALL',
  'LC_CTYPE',
  'TZ',
  'TERM',
  'USER',
  'LOGNAME',
  'SHELL',
  'TMPDIR',
];

/**
 * The runtime's own secrets (its Postgres URL, NATS URL and credentials, the model key):
 * refused in `AW_TOOL_ENV_ALLOW`, so that no configuration hands them to a command.
 */
export const RUNTIME_SECRET_VARIABLES: readonly string[] = [
  'DATABASE_URL',
  'NATS_URL',
  'NATS_USER',
  'NATS_PASSWORD',
  'NATS_TOKEN',
  'NATS_NKEY_SEED',
  'NATS_CREDS_FILE',
  'AW_MODEL_API_KEY',
];

/**
 * The environment of a tool command: only the variables named in `allow` that `env` has.
 * Everything else the runtime process holds stays out (docs/decisions/0142).
 */
export function toolEnvironment(
  env: Readonly<Record<string, string | undefined>>,
  allow: readonly string[],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of allow) {
    const value = env[name];
    if (value !== undefined && !RUNTIME_SECRET_VARIABLES.includes(name)) out[name] = value;
  }
  return out;
}
