import type { Figure } from './figure.ts';

/** A benchmark group: one file in `bench/src/groups/`, registered in `groups/index.ts`. */
export interface BenchGroup {
  /** The name used on the command line (`pnpm bench <name>`) and as figure prefix. */
  readonly name: string;
  readonly description: string;
  /**
   * Extra Node flags the group needs (e.g. `--expose-gc`). When the running process lacks
   * one, the harness runs the group in a child process started with them.
   */
  readonly nodeFlags?: readonly string[];
  /** Runs the benchmark and returns its figures. Progress may go to stderr, never stdout. */
  run(): Promise<readonly Figure[]>;
}
