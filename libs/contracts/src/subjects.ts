/**
 * Subject, stream and bucket names of DESIGN.md, all derived from one configurable prefix
 * (`aw` by default) so that test files and tenants are isolated from each other.
 */
export const DEFAULT_PREFIX = 'aw';

/** Names derived from one prefix. Streams and buckets get an upper/lower-cased prefix. */
export interface Names {
  readonly prefix: string;
  /** Stream holding every session event: subjects `<prefix>.session.*.>`. */
  readonly eventsStream: string;
  /** Work-queue stream of persistence commands: subjects `<prefix>.persist.*`. */
  readonly commandsStream: string;
  /** KV bucket of session leases (R13). */
  readonly leaseBucket: string;
  /** Non-transient events of one session. */
  eventSubject(sessionId: string): string;
  /** Transient events (R3.3) of one turn of one session. */
  transientSubject(sessionId: string, turnId: string): string;
  /** Filter matching every transient subject of one session. */
  transientFilter(sessionId: string): string;
  /** Filter matching every event subject of one session. */
  sessionFilter(sessionId: string): string;
  /** Filter matching every session's non-transient events. */
  readonly allEventsFilter: string;
  /** Filter matching every subject of the events stream. */
  readonly eventsStreamSubject: string;
  /** Persistence commands of one session. */
  commandSubject(sessionId: string): string;
  /** Filter matching every persistence command. */
  readonly allCommandsFilter: string;
  /** Commit confirmations of one session's persistence commands. */
  confirmSubject(sessionId: string): string;
  /** Dead-letter subject of one consumer; the reason travels in headers. */
  deadLetterSubject(consumer: string): string;
  /** Title generation requests (service, queue group). */
  readonly titlesGenerate: string;
  /** Projection queries (service, queue group). */
  readonly projectionGet: string;
  /** Claim and load a session (service, queue group). */
  readonly runtimeOpen: string;
  /** An operation on a resident session, answered by its owner. */
  runtimeOp(sessionId: string, op: string): string;
  /** A read-side query `<prefix>.query.<op>` (service, queue group; DESIGN "The read side"). */
  query(op: string): string;
  /** Filter matching every read-side query subject. */
  readonly allQueriesFilter: string;
  /** The operation of `<prefix>.query.<op>`; `undefined` for any other subject. */
  parseQuerySubject(subject: string): string | undefined;
  /** Every operation on one session (its owner's subscription). */
  runtimeSessionOpsFilter(sessionId: string): string;
  /** Every operation on any session (the queue-group fallback). */
  readonly runtimeOpsFilter: string;
  /** A runtime instance's liveness ping, behind lease takeover (R13.1). */
  runtimeInstancePing(instanceId: string): string;
  /** Projection instances' membership heartbeats (body `{ id, up }`). */
  readonly projectionMembers: string;
  /** Forwarded copies of one session's events for projection instance `member`. */
  projectionForward(member: string, sessionId: string): string;
  /** Filter matching every forwarded copy for `member`. */
  projectionForwardFilter(member: string): string;
  /** A projection instance's commit notice for one session (body: the last number). */
  projectionApplied(sessionId: string): string;
  /** Filter matching every session's commit notices. */
  readonly projectionAppliedFilter: string;

  /** Session (and turn, on a `tx` subject) of an event subject; `undefined` for any other. */
  parseEventSubject(subject: string): EventSubject | undefined;
  /** Session of a persistence command subject; `undefined` for any other. */
  parseCommandSubject(subject: string): string | undefined;
  /** Session and operation of `<prefix>.rt.<sid>.<op>`; `undefined` for any other. */
  parseRuntimeOpSubject(subject: string): RuntimeOpSubject | undefined;
  /** Session of a forwarded copy for `member`; `undefined` for any other. */
  parseProjectionForward(member: string, subject: string): string | undefined;
  /** Session of a commit notice; `undefined` for any other. */
  parseProjectionApplied(subject: string): string | undefined;
}

/** What an event subject names: the session, and the turn of a transient (`tx`) subject. */
interface EventSubject {
  readonly sessionId: string;
  readonly turnId: string | null;
}

/** What a runtime operation subject names. */
interface RuntimeOpSubject {
  readonly sessionId: string;
  readonly op: string;
}

const TOKEN = /^[A-Za-z0-9_-]+$/;

/** Throws when `value` cannot be one token of a NATS subject. */
function assertSubjectToken(what: string, value: string): void {
  if (!TOKEN.test(value)) {
    throw new TypeError(
      `${what} must be a non-empty subject token of letters, digits, '-' or '_': ${JSON.stringify(value)}`,
    );
  }
}

/** Builds every name of DESIGN.md's "Subjects, streams, buckets" from one prefix. */
export function names(prefix: string = DEFAULT_PREFIX): Names {
  assertSubjectToken('prefix', prefix);
  const up = prefix.toUpperCase().replaceAll('-', '_');
  const low = prefix.toLowerCase().replaceAll('-', '_');
  const sid = (s: string) => {
    assertSubjectToken('sessionId', s);
    return s;
  };
  return {
    prefix,
    eventsStream: `${up}_EVENTS`,
    commandsStream: `${up}_COMMANDS`,
    leaseBucket: `${low}_leases`,
    eventSubject: (s) => `${prefix}.session.${sid(s)}.ev`,
    transientSubject: (s, t) => {
      assertSubjectToken('turnId', t);
      return `${prefix}.session.${sid(s)}.tx.${t}`;
    },
    transientFilter: (s) => `${prefix}.session.${sid(s)}.tx.*`,
    sessionFilter: (s) => `${prefix}.session.${sid(s)}.>`,
    allEventsFilter: `${prefix}.session.*.ev`,
    eventsStreamSubject: `${prefix}.session.*.>`,
    commandSubject: (s) => `${prefix}.persist.${sid(s)}`,
    allCommandsFilter: `${prefix}.persist.*`,
    confirmSubject: (s) => `${prefix}.confirm.${sid(s)}`,
    deadLetterSubject: (consumer) => {
      assertSubjectToken('consumer', consumer);
      return `${prefix}.dlq.${consumer}`;
    },
    titlesGenerate: `${prefix}.titles.generate`,
    projectionGet: `${prefix}.projection.get`,
    runtimeOpen: `${prefix}.rt.open`,
    runtimeOp: (s, op) => {
      assertSubjectToken('op', op);
      return `${prefix}.rt.${sid(s)}.${op}`;
    },
    query: (op) => {
      assertSubjectToken('op', op);
      return `${prefix}.query.${op}`;
    },
    allQueriesFilter: `${prefix}.query.*`,
    parseQuerySubject: (subject) => single(tokensAfter(prefix, 'query', subject)),
    runtimeSessionOpsFilter: (s) => `${prefix}.rt.${sid(s)}.*`,
    runtimeOpsFilter: `${prefix}.rt.*.*`,
    runtimeInstancePing: (instanceId) => {
      assertSubjectToken('instanceId', instanceId);
      return `${prefix}.rt.instance.${instanceId}.ping`;
    },
    projectionMembers: `${prefix}.projection.members`,
    projectionForward: (member, s) => {
      assertSubjectToken('member', member);
      return `${prefix}.projection.fwd.${member}.${sid(s)}`;
    },
    projectionForwardFilter: (member) => {
      assertSubjectToken('member', member);
      return `${prefix}.projection.fwd.${member}.*`;
    },
    projectionApplied: (s) => `${prefix}.projection.applied.${sid(s)}`,
    projectionAppliedFilter: `${prefix}.projection.applied.*`,
    parseEventSubject: (subject) => {
      const t = tokensAfter(prefix, 'session', subject);
      if (t?.length === 2 && t[1] === 'ev') return { sessionId: t[0] as string, turnId: null };
      if (t?.length === 3 && t[1] === 'tx') {
        return { sessionId: t[0] as string, turnId: t[2] as string };
      }
      return undefined;
    },
    parseCommandSubject: (subject) => single(tokensAfter(prefix, 'persist', subject)),
    parseRuntimeOpSubject: (subject) => {
      const t = tokensAfter(prefix, 'rt', subject);
      return t?.length === 2 ? { sessionId: t[0] as string, op: t[1] as string } : undefined;
    },
    parseProjectionForward: (member, subject) => {
      const t = tokensAfter(prefix, 'projection', subject);
      return t?.length === 3 && t[0] === 'fwd' && t[1] === member ? t[2] : undefined;
    },
    parseProjectionApplied: (subject) => {
      const t = tokensAfter(prefix, 'projection', subject);
      return t?.length === 2 && t[0] === 'applied' ? t[1] : undefined;
    },
  };
}

/**
 * The tokens of `subject` after `<prefix>.<kind>.`, each a valid subject token; `undefined`
 * when the subject is of another kind or a token is empty or not a token (a wildcard).
 */
function tokensAfter(prefix: string, kind: string, subject: string): string[] | undefined {
  const head = `${prefix}.${kind}.`;
  if (!subject.startsWith(head)) return undefined;
  const rest = subject.slice(head.length).split('.');
  return rest.every((t) => TOKEN.test(t)) ? rest : undefined;
}

function single(tokens: string[] | undefined): string | undefined {
  return tokens?.length === 1 ? tokens[0] : undefined;
}

/** Header names carried on bus messages. */
export const HEADERS = {
  /** JetStream de-duplication id: the event or command id. */
  msgId: 'Nats-Msg-Id',
  /** The event's per-session sequence number (R2.2). */
  sequence: 'Aw-Seq',
  /**
   * Sequence number of the session's previous non-transient event (0 for the first), so
   * that a consumer of `ev` subjects can tell an evicted transient hole from a real gap.
   */
  previousDurableSequence: 'Aw-Prev-Seq',
  /** The event type, so consumers can skip types without parsing the body. */
  eventType: 'Aw-Type',
  /**
   * On a writer's fence marker (an empty message, no event): the runtime instance that took
   * the session over and closed this subject to every earlier writer (docs/decisions/0110).
   * Followers skip such messages; they carry no number.
   */
  fence: 'Aw-Fence',
  /** On a fence marker: the session's last number when the fence was set (not its own). */
  fenceAfter: 'Aw-Fence-After',
  /** W3C trace context. */
  traceparent: 'traceparent',
  tracestate: 'tracestate',
  /** Why a message was dead-lettered. */
  deadLetterReason: 'Aw-Dlq-Reason',
  /** Error code of a dead-lettered message. */
  deadLetterCode: 'Aw-Dlq-Code',
  /** Subject the dead-lettered message was first published on. */
  deadLetterSubject: 'Aw-Dlq-Subject',
} as const;
