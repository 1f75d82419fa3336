/**
 * The AsyncAPI 3 document of the wire (issue 14 item 6): the subjects a frontend in any
 * language uses, the streams behind them, the headers, and every payload schema, generated
 * from the zod schemas of libs/contracts with zod's own JSON Schema output. Written to
 * docs/asyncapi.json by `pnpm asyncapi` (scripts/asyncapi.ts).
 */
import {
  AckReply,
  AnswerPermissionRequest,
  ArchiveReply,
  ArchiveRequest,
  CreateReply,
  DeleteReply,
  DeleteRequest,
  EmptyRequest,
  ErrorReply,
  EVENT_PAYLOAD_SCHEMAS,
  EVENT_TYPES,
  EventEnvelope,
  ForkRequest,
  HEADERS,
  HistoryReply,
  HistoryRequest,
  InterruptReply,
  isTransientEventType,
  ListSessionsReply,
  ListSessionsRequest,
  names,
  OpenReply,
  OpenRequest,
  ProjectionGetReply,
  ProjectionGetRequest,
  PromptReply,
  PromptRequest,
  QueryErrorReply,
  RemoveInputReply,
  RemoveInputRequest,
  RenameReply,
  RenameRequest,
  ReorderInputsReply,
  ReorderInputsRequest,
  RewindRequest,
  SessionCommandReply,
  TreeRequest,
} from '@agentwire/contracts';
import { z } from 'zod';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const PREFIX = 'aw';

/** `#/definitions/X` (and `#` itself) of one generated schema, moved under components. */
function relocate(value: Json, name: string, defs: ReadonlySet<string>): Json {
  if (Array.isArray(value)) return value.map((v) => relocate(v, name, defs));
  if (value === null || typeof value !== 'object') return value;
  const out: JsonObject = {};
  for (const [key, v] of Object.entries(value)) {
    if (key === '$ref' && typeof v === 'string') {
      if (v === '#') out[key] = `#/components/schemas/${name}`;
      else if (v.startsWith('#/definitions/')) {
        const def = v.slice('#/definitions/'.length);
        if (!defs.has(def)) throw new Error(`${name}: $ref to an unknown definition ${v}`);
        out[key] = `#/components/schemas/${name}.${def}`;
      } else throw new Error(`${name}: unexpected $ref ${v}`);
    } else out[key] = relocate(v, name, defs);
  }
  return out;
}

/** Collects JSON Schemas (AsyncAPI's schema format is a JSON Schema draft 7 superset). */
class Schemas {
  readonly all: Record<string, Json> = {};

  /** Adds `schema` as `#/components/schemas/<name>` and returns a `$ref` to it. */
  add(name: string, schema: z.ZodType, description?: string): JsonObject {
    const generated = z.toJSONSchema(schema, {
      target: 'draft-7',
      io: 'output',
      unrepresentable: 'any',
      cycles: 'ref',
      reused: 'inline',
    }) as JsonObject;
    const { $schema: _drop, definitions, ...body } = generated;
    const defs = (definitions ?? {}) as JsonObject;
    const known = new Set(Object.keys(defs));
    for (const [def, value] of Object.entries(defs)) {
      this.all[`${name}.${def}`] = relocate(value, name, known);
    }
    const main = relocate(body, name, known) as JsonObject;
    this.all[name] = description === undefined ? main : { description, ...main };
    return { $ref: `#/components/schemas/${name}` };
  }
}

const eventHeaders: JsonObject = {
  type: 'object',
  properties: {
    [HEADERS.msgId]: { type: 'string', description: 'The event id (broker de-duplication).' },
    [HEADERS.sequence]: {
      type: 'string',
      pattern: '^[1-9][0-9]*$',
      description: "The event's per-session sequence number, as in the body (R2.2).",
    },
    [HEADERS.previousDurableSequence]: {
      type: 'string',
      pattern: '^[0-9]+$',
      description:
        'The number of the previous non-transient event of the session (0 for none): on an `ev` subject, a jump past it is a real gap, not an evicted transient.',
    },
    [HEADERS.eventType]: {
      type: 'string',
      description: 'The event type, to skip types without parsing the body.',
    },
    [HEADERS.fence]: {
      type: 'string',
      description:
        'Only on a fence marker (an empty message, no event): the runtime that took the session over. Skip such messages; they carry no number.',
    },
    [HEADERS.fenceAfter]: {
      type: 'string',
      description: "Only on a fence marker: the session's last number when it was set.",
    },
    'Aw-Blobs': {
      type: 'string',
      pattern: '^[1-9][0-9]*$',
      description:
        'Present when that many string fields of the body were too large for a message: each holds a reference `aw-blob:sha256:<64 hex>:<bytes>` instead, whose content is the object named `<hex>` in the object store bucket `<prefix>_blobs` (docs/decisions/0162).',
    },
    [HEADERS.traceparent]: { type: 'string', description: 'W3C trace context.' },
    [HEADERS.tracestate]: { type: 'string', description: 'W3C trace context.' },
  },
  required: [HEADERS.msgId, HEADERS.sequence, HEADERS.eventType],
};

const camel = (s: string) => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

interface RequestReply {
  readonly name: string;
  readonly address: string;
  readonly summary: string;
  readonly request: z.ZodType;
  readonly reply: z.ZodType;
  readonly error: z.ZodType;
  readonly sessionParam: boolean;
}

/** The AsyncAPI 3.1.0 document of agentwire's wire, for the default prefix `aw`. */
export function asyncApiDocument(): JsonObject {
  const n = names(PREFIX);
  const schemas = new Schemas();
  const messages: JsonObject = {};
  const channels: JsonObject = {};
  const operations: JsonObject = {};

  const envelope = schemas.add(
    'EventEnvelope',
    EventEnvelope,
    'The envelope of every event (R2.1); `type` selects the payload schema.',
  );
  const headers = { $ref: '#/components/schemas/EventHeaders' };
  schemas.all.EventHeaders = eventHeaders;
  const durable: JsonObject = {};
  const transient: JsonObject = {};
  for (const type of EVENT_TYPES) {
    const payload = schemas.add(`${type}.payload`, EVENT_PAYLOAD_SCHEMAS[type] as z.ZodType);
    const name = `event.${type}`;
    messages[name] = {
      name: type,
      title: type,
      contentType: 'application/json',
      headers,
      payload: {
        allOf: [
          envelope,
          {
            type: 'object',
            properties: { type: { const: type }, payload },
            required: ['type', 'payload'],
          },
        ],
      },
    };
    (isTransientEventType(type) ? transient : durable)[type] = {
      $ref: `#/components/messages/${name}`,
    };
  }
  const sessionId = { description: 'A session id: letters, digits, "-" and "_".' };
  channels.sessionEvents = {
    address: `${PREFIX}.session.{sessionId}.ev`,
    title: 'Durable events of one session',
    description: `Every non-transient event of a session, in sequence order, numbered without gaps among themselves (\`${HEADERS.previousDurableSequence}\` links them). Stored in the JetStream stream \`${n.eventsStream}\` (subjects \`${n.eventsStreamSubject}\`). Follow with an ordered consumer filtered on \`${PREFIX}.session.<sid>.>\`; see docs/frontends.md.`,
    parameters: { sessionId },
    messages: durable,
  };
  channels.sessionTransientEvents = {
    address: `${PREFIX}.session.{sessionId}.tx.{turnId}`,
    title: 'Transient events of one turn',
    description: `Streaming chunks and progress (R3.3), numbered in the same sequence as the durable events but kept only for a while in \`${n.eventsStream}\`; a hole left by an evicted transient is not a gap.`,
    parameters: { sessionId, turnId: { description: 'The turn id.' } },
    messages: transient,
  };
  operations.followSession = {
    action: 'receive',
    channel: { $ref: '#/channels/sessionEvents' },
    summary: 'Follow the durable events of a session (replay from a number, then live).',
    messages: Object.keys(durable).map((t) => ({
      $ref: `#/channels/sessionEvents/messages/${t}`,
    })),
  };
  operations.followSessionTransient = {
    action: 'receive',
    channel: { $ref: '#/channels/sessionTransientEvents' },
    summary: 'Receive the streaming chunks of a running turn.',
    messages: Object.keys(transient).map((t) => ({
      $ref: `#/channels/sessionTransientEvents/messages/${t}`,
    })),
  };

  const runtime = (
    op: string,
    request: z.ZodType,
    reply: z.ZodType,
    summary: string,
  ): RequestReply => ({
    name: `runtime.${op}`,
    address: `${PREFIX}.rt.{sessionId}.${op}`,
    summary,
    request,
    reply,
    error: ErrorReply,
    sessionParam: true,
  });
  const query = (
    op: string,
    request: z.ZodType,
    reply: z.ZodType,
    summary: string,
  ): RequestReply => ({
    name: `query.${op}`,
    address: n.query(op),
    summary,
    request,
    reply,
    error: QueryErrorReply,
    sessionParam: false,
  });
  const requestReplies: RequestReply[] = [
    {
      name: 'runtime.open',
      address: n.runtimeOpen,
      summary: 'Claim and load a session (a new one without sessionId).',
      request: OpenRequest,
      reply: OpenReply,
      error: ErrorReply,
      sessionParam: false,
    },
    runtime('create', EmptyRequest, CreateReply, 'Create an empty session with this id.'),
    runtime('prompt', PromptRequest, PromptReply, 'Start a turn, or queue or guide an input.'),
    runtime('interrupt', EmptyRequest, InterruptReply, 'Stop the running turn.'),
    runtime('rename', RenameRequest, RenameReply, 'Set the title (source custom).'),
    runtime(
      'answer_permission',
      AnswerPermissionRequest,
      AckReply,
      'Answer a permission_requested event.',
    ),
    runtime(
      'rewind',
      RewindRequest,
      SessionCommandReply,
      'List the checkpoints, or put files and conversation back (/rewind).',
    ),
    runtime(
      'tree',
      TreeRequest,
      SessionCommandReply,
      "List the conversation's branches, or move to a message of any (/tree).",
    ),
    runtime(
      'fork',
      ForkRequest,
      SessionCommandReply,
      'Copy the conversation up to a message into a new session (/fork).',
    ),
    runtime('close', EmptyRequest, AckReply, 'End the session and release it.'),
    runtime('remove_input', RemoveInputRequest, RemoveInputReply, 'Remove a waiting input.'),
    runtime(
      'reorder_inputs',
      ReorderInputsRequest,
      ReorderInputsReply,
      'Move waiting inputs to the front, in this order.',
    ),
    {
      name: 'projection.get',
      address: n.projectionGet,
      summary: "Read a session's projection and the number it is as of (asOfSeq).",
      request: ProjectionGetRequest,
      reply: ProjectionGetReply,
      error: ErrorReply,
      sessionParam: false,
    },
    query('list_sessions', ListSessionsRequest, ListSessionsReply, 'One page of sessions.'),
    query('history', HistoryRequest, HistoryReply, "One page of a session's messages."),
    query('archive', ArchiveRequest, ArchiveReply, 'Archive or restore a session.'),
    query('delete', DeleteRequest, DeleteReply, "Delete a session's rows and events."),
  ];
  for (const rr of requestReplies) {
    const id = camel(rr.name.replace('.', '_'));
    const requestRef = schemas.add(`${rr.name}.request`, rr.request);
    const replyRef = schemas.add(`${rr.name}.reply`, rr.reply);
    const errorName = rr.error === ErrorReply ? 'RuntimeErrorReply' : 'QueryErrorReply';
    if (schemas.all[errorName] === undefined) schemas.add(errorName, rr.error);
    messages[`${rr.name}.request`] = {
      name: `${rr.name}.request`,
      contentType: 'application/json',
      payload: requestRef,
    };
    messages[`${rr.name}.reply`] = {
      name: `${rr.name}.reply`,
      contentType: 'application/json',
      payload: { oneOf: [replyRef, { $ref: `#/components/schemas/${errorName}` }] },
    };
    channels[id] = {
      address: rr.address,
      title: rr.name,
      ...(rr.sessionParam ? { parameters: { sessionId } } : {}),
      messages: { request: { $ref: `#/components/messages/${rr.name}.request` } },
    };
    channels[`${id}Reply`] = {
      address: null,
      title: `${rr.name} reply`,
      description: "The requester's inbox (NATS request/reply).",
      messages: { reply: { $ref: `#/components/messages/${rr.name}.reply` } },
    };
    operations[id] = {
      action: 'send',
      channel: { $ref: `#/channels/${id}` },
      summary: rr.summary,
      messages: [{ $ref: `#/channels/${id}/messages/request` }],
      reply: {
        channel: { $ref: `#/channels/${id}Reply` },
        messages: [{ $ref: `#/channels/${id}Reply/messages/reply` }],
      },
    };
  }

  const sortedSchemas: JsonObject = {};
  for (const key of Object.keys(schemas.all).sort()) sortedSchemas[key] = schemas.all[key] ?? null;
  return {
    asyncapi: '3.1.0',
    info: {
      title: 'agentwire',
      version: '0.1.0',
      description: [
        'The wire of agentwire, the event backbone for AI coding-agent sessions: NATS subjects with JSON bodies, for a frontend in any language (docs/frontends.md).',
        `Every subject starts with a configurable prefix; this document uses the default \`${PREFIX}\` (AW_PREFIX). Streams: \`${n.eventsStream}\` (subjects \`${n.eventsStreamSubject}\`, the session events) and \`${n.commandsStream}\` (\`${n.allCommandsFilter}\`, persistence commands, internal).`,
        `Generated from libs/contracts by \`pnpm asyncapi\`; ${EVENT_TYPES.length} event payload schemas.`,
      ].join('\n\n'),
    },
    defaultContentType: 'application/json',
    servers: {
      local: {
        host: '127.0.0.1:4222',
        protocol: 'nats',
        description: 'A local NATS server with JetStream.',
      },
    },
    channels,
    operations,
    components: { schemas: sortedSchemas, messages },
  };
}
