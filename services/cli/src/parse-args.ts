import { parseArgs } from 'node:util';
import { usageError } from './cli-error.ts';

/** A parsed command line. */
export type Command =
  | { readonly name: 'help' }
  | { readonly name: 'new' }
  | {
      readonly name: 'prompt';
      readonly sessionId: string;
      readonly text: string;
      readonly wait: boolean;
    }
  | {
      readonly name: 'follow';
      readonly sessionId: string;
      readonly after: number;
      readonly until?: string;
    }
  | { readonly name: 'projection'; readonly sessionId: string }
  | {
      readonly name: 'answer';
      readonly sessionId: string;
      readonly requestId: string;
      readonly decision: 'allow' | 'deny';
      readonly reason?: string;
    }
  | { readonly name: 'interrupt'; readonly sessionId: string }
  | { readonly name: 'rename'; readonly sessionId: string; readonly title: string }
  | { readonly name: 'demo' };

/** The help text. */
export const USAGE = `usage: agentwire <command> [arguments]

commands:
  new                                   open a new session and print its id
  prompt <sid> <text...> [--wait]       start a turn (--wait: until it ends)
  follow <sid> [--after N] [--until T]  print events live: seq, type, summary
  projection <sid>                      print the session's projection as JSON
  answer <sid> <requestId> allow|deny [--reason R]
                                        answer a permission request
  interrupt <sid>                       stop the running turn
  rename <sid> <title...>               set the session title
  demo                                  run a scripted session end to end

environment: NATS_URL (nats://127.0.0.1:4222), AW_PREFIX (aw)
exit codes: 0 ok, 1 failure, 2 bad usage, 3 unknown session or request`;

const SEQUENCE = /^\d{1,15}$/;

function need(positionals: readonly string[], count: number, what: string): void {
  if (positionals.length < count) throw usageError(`missing ${what}\n\n${USAGE}`);
}

function noExtra(positionals: readonly string[], count: number): void {
  if (positionals.length > count) {
    throw usageError(`unexpected argument ${JSON.stringify(positionals[count])}\n\n${USAGE}`);
  }
}

/** Parses `argv` (without node and the script); throws a usage `CliError` when it is wrong. */
export function parseCommand(argv: readonly string[]): Command {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (cause) {
    throw usageError(`${(cause as Error).message}\n\n${USAGE}`);
  }
  const { values, positionals } = parsed;
  const [name, ...args] = positionals;
  if (values.help === true || name === 'help') return { name: 'help' };
  if (name === undefined) throw usageError(`missing command\n\n${USAGE}`);
  const sid = () => args[0] ?? '';
  switch (name) {
    case 'new':
    case 'demo':
      noExtra(args, 0);
      return { name };
    case 'prompt':
      need(args, 2, 'session id or text');
      return { name, sessionId: sid(), text: args.slice(1).join(' '), wait: values.wait === true };
    case 'follow': {
      need(args, 1, 'session id');
      noExtra(args, 1);
      const after = values.after ?? '0';
      if (!SEQUENCE.test(after))
        throw usageError(`--after must be a non-negative integer, got ${JSON.stringify(after)}`);
      return {
        name,
        sessionId: sid(),
        after: Number(after),
        ...(values.until === undefined ? {} : { until: values.until }),
      };
    }
    case 'projection':
    case 'interrupt':
      need(args, 1, 'session id');
      noExtra(args, 1);
      return { name, sessionId: sid() };
    case 'answer': {
      need(args, 3, 'session id, request id or decision');
      noExtra(args, 3);
      const decision = args[2];
      if (decision !== 'allow' && decision !== 'deny') {
        throw usageError(`the decision must be allow or deny, got ${JSON.stringify(decision)}`);
      }
      return {
        name,
        sessionId: sid(),
        requestId: args[1] ?? '',
        decision,
        ...(values.reason === undefined ? {} : { reason: values.reason }),
      };
    }
    case 'rename':
      need(args, 2, 'session id or title');
      return { name, sessionId: sid(), title: args.slice(1).join(' ') };
    default:
      throw usageError(`unknown command ${JSON.stringify(name)}\n\n${USAGE}`);
  }
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      after: { type: 'string' },
      until: { type: 'string' },
      reason: { type: 'string' },
      wait: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}
