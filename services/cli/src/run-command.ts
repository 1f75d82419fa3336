import { isRuntimeFailure } from '@agentwire/bus';
import { type CliContext, checkSessionId, failureError } from './cli-context.ts';
import { demoCommand } from './demo-command.ts';
import { followCommand } from './follow-command.ts';
import { formatPromptReply } from './format-prompt-reply.ts';
import { type Command, USAGE } from './parse-args.ts';

/**
 * Runs one parsed command against the runtime and projection (DESIGN.md "Who uses it": a
 * terminal frontend). Expected failures throw `CliError` with the exit code to use.
 */
export async function runCommand(ctx: CliContext, command: Command): Promise<void> {
  const { client } = ctx;
  switch (command.name) {
    case 'help':
      ctx.out(USAGE);
      return;
    case 'new': {
      const opened = await client.open();
      if (isRuntimeFailure(opened)) throw failureError('open', opened);
      ctx.out(opened.sessionId);
      return;
    }
    case 'prompt': {
      checkSessionId(command.sessionId);
      const reply = await client.prompt(
        command.sessionId,
        { text: command.text, wait: command.wait },
        command.wait ? { timeoutMs: 600_000 } : {},
      );
      if (isRuntimeFailure(reply)) throw failureError('prompt', reply);
      ctx.out(formatPromptReply(reply, command.wait));
      return;
    }
    case 'follow':
      await followCommand(ctx, {
        sessionId: command.sessionId,
        after: command.after,
        ...(command.until === undefined ? {} : { until: command.until }),
      });
      return;
    case 'projection': {
      checkSessionId(command.sessionId);
      const snapshot = await client.projection(command.sessionId);
      if (isRuntimeFailure(snapshot)) throw failureError('projection', snapshot);
      ctx.out(
        JSON.stringify({ asOfSeq: snapshot.asOfSeq, projection: snapshot.projection }, null, 2),
      );
      return;
    }
    case 'answer': {
      checkSessionId(command.sessionId);
      const reply = await client.answerPermission(command.sessionId, {
        requestId: command.requestId,
        decision: command.decision,
        ...(command.reason === undefined ? {} : { reason: command.reason }),
      });
      if (isRuntimeFailure(reply)) throw failureError('answer', reply);
      ctx.out(`${command.requestId} ${command.decision}`);
      return;
    }
    case 'interrupt': {
      checkSessionId(command.sessionId);
      const reply = await client.interrupt(command.sessionId);
      if (isRuntimeFailure(reply)) throw failureError('interrupt', reply);
      ctx.out(`interrupted ${reply.turnId}`);
      return;
    }
    case 'rename': {
      checkSessionId(command.sessionId);
      const reply = await client.rename(command.sessionId, command.title);
      if (isRuntimeFailure(reply)) throw failureError('rename', reply);
      ctx.out(reply.title);
      return;
    }
    case 'demo':
      await demoCommand(ctx);
      return;
    default: {
      const never: never = command;
      return never;
    }
  }
}
