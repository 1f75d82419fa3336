export { type CliContext, checkSessionId, failureError } from './cli-context.ts';
export { CliError, EXIT, type ExitCode, usageError } from './cli-error.ts';
export { DEMO_PROMPT, type DemoOptions, demoCommand } from './demo-command.ts';
export { type FollowOptions, followCommand } from './follow-command.ts';
export { formatEvent, SUMMARY_MAX_CHARS, summarize } from './format-event.ts';
export { buildProgram, type ProgramDeps } from './program.ts';
