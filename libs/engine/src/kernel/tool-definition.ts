import type { RiskLevel } from '@agentwire/contracts';

/** What a tool returns; `content` goes back to the model. */
export interface ToolOutput {
  readonly content: string;
  /** True when `content` was cut to the size cap (R7.5 serialisation facts). */
  readonly truncated: boolean;
  readonly originalBytes: number;
  readonly returnedBytes: number;
  /** Workspace-relative files this call read, for the part's snapshot (R7.5). */
  readonly filesRead?: readonly string[];
  /**
   * Files this call wrote whole, with the bytes it wrote (never sent anywhere): a
   * checkpoint records them as what the tool left without reading them back, so that an
   * edit someone makes right after the tool is not taken for the tool's (0244).
   */
  readonly filesWritten?: readonly FileWritten[];
}

/** A whole file a tool wrote: its workspace-relative path, as the call named it. */
export interface FileWritten {
  readonly path: string;
  readonly bytes: Uint8Array;
}

/** A failure the model should see as a tool error, with a stable code. */
export class ToolError extends Error {
  override readonly name = 'ToolError';
  readonly code: string;

  constructor(code: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}

/** A tool the runtime offers the model. */
export interface ToolDefinition {
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the input, sent to the model. */
  readonly inputSchema: Readonly<Record<string, unknown>>;
  /** Asks the host first (R1.4) when true. */
  readonly needsPermission: boolean;
  readonly riskLevel: RiskLevel;
  readonly readOnly: boolean;
  /**
   * What it does to the workspace: reads it, writes files in it, or runs programs in it.
   * The session mode decides on it (docs/decisions/0223).
   */
  readonly effect: 'read' | 'write' | 'execute';
  /** What its permission request asks the user, when not that it changes the workspace. */
  readonly askReason?: (input: unknown) => string;
  /** Validates `input` and runs; throws {@link ToolError} for expected failures. */
  run(input: unknown, signal: AbortSignal): Promise<ToolOutput>;
}
