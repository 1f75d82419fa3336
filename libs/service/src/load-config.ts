import type { z } from 'zod';

/** One environment variable that failed validation. */
export interface ConfigProblem {
  /** The variable's name (the first path segment of the schema issue). */
  readonly variable: string;
  /** What is wrong with it, in words. */
  readonly problem: string;
}

/**
 * Thrown by {@link loadConfig} when the environment does not satisfy the schema. Its
 * message names every bad variable and what is wrong with it, so a service fails at start
 * with one readable line instead of later with a confusing one.
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  /** Stable code for programmatic handling. */
  readonly code = 'AW_ERR_CONFIG';
  /** Each bad variable and its problem. */
  readonly problems: readonly ConfigProblem[];

  constructor(problems: readonly ConfigProblem[], options?: ErrorOptions) {
    super(
      `invalid configuration: ${problems.map((p) => `${p.variable}: ${p.problem}`).join('; ')}`,
      options,
    );
    this.problems = problems;
  }
}

/**
 * Validates the process environment (or any string map) against a zod object schema and
 * returns the parsed, typed configuration. Environment values are strings: use
 * `z.coerce.number()` and defaults in the schema. Throws {@link ConfigError} naming every
 * variable that is missing or malformed (DESIGN.md "Processes": zod-validated environment).
 *
 * @example
 * const Config = z.object({ NATS_URL: z.string().url(), HTTP_PORT: z.coerce.number().int().default(0) });
 * const config = loadConfig(Config); // throws ConfigError on a bad value
 */
export function loadConfig<S extends z.ZodType>(
  schema: S,
  env: Readonly<Record<string, string | undefined>> = process.env,
): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue): ConfigProblem => {
    const variable = issue.path.length > 0 ? issue.path.map(String).join('.') : '(environment)';
    const missing = issue.path.length === 1 && env[String(issue.path[0])] === undefined;
    const given = missing ? '' : ` (got ${JSON.stringify(env[String(issue.path[0])])})`;
    return { variable, problem: missing ? 'is required' : `${issue.message}${given}` };
  });
  throw new ConfigError(problems, { cause: result.error });
}
