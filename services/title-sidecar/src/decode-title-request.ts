import { type TitleError, TitleRequest } from '@agentwire/contracts';

/** Outcome of {@link decodeTitleRequest}. */
export type DecodedTitleRequest =
  | { readonly ok: true; readonly request: TitleRequest }
  | {
      readonly ok: false;
      readonly error: TitleError;
      /** The session id, when the body was JSON with a string `sessionId`. */
      readonly sessionId?: string;
      readonly requestId?: string;
    };

/** Options of {@link decodeTitleRequest}. */
export interface DecodeTitleRequestOptions {
  /** Bodies above this many bytes are refused unread (`payload_too_large`). */
  readonly maxBytes: number;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Parses a raw `<prefix>.titles.generate` body at the boundary (STYLE.md "Types carry the
 * contract"): too many bytes -> `payload_too_large`; not UTF-8 JSON -> `invalid_json`;
 * failing {@link TitleRequest} -> `invalid_request` naming each field and its problem.
 * None of them is retryable: the same body fails the same way.
 */
export function decodeTitleRequest(
  data: Uint8Array,
  options: DecodeTitleRequestOptions,
): DecodedTitleRequest {
  if (data.byteLength > options.maxBytes) {
    return refuse(
      'payload_too_large',
      `the request has ${data.byteLength} bytes, more than the limit of ${options.maxBytes}`,
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(decoder.decode(data));
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return refuse('invalid_json', `the request is not UTF-8 JSON: ${why}`);
  }
  const parsed = TitleRequest.safeParse(body);
  if (parsed.success) return { ok: true, request: parsed.data };
  const issues = parsed.error.issues.map((issue) => ({
    path: issue.path.length === 0 ? '(body)' : issue.path.map(String).join('.'),
    message: issue.message,
  }));
  const message = `invalid title request: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`;
  return {
    ok: false,
    error: { code: 'invalid_request', message, retryable: false, issues },
    ...echo(body),
  };
}

function refuse(code: TitleError['code'], message: string): DecodedTitleRequest {
  return { ok: false, error: { code, message, retryable: false } };
}

function echo(body: unknown): { sessionId?: string; requestId?: string } {
  if (typeof body !== 'object' || body === null) return {};
  const { sessionId, requestId } = body as Record<string, unknown>;
  return {
    ...(typeof sessionId === 'string' ? { sessionId } : {}),
    ...(typeof requestId === 'string' ? { requestId } : {}),
  };
}
