import { createHash } from 'node:crypto';
import type { ContentHasher } from '@agentwire/engine';

/** The engine's content hasher: Node's SHA-256 (the digests of `model_request` chains, 0161). */
export const sha256Hasher: ContentHasher = {
  sha256Hex: (text) => createHash('sha256').update(text, 'utf8').digest('hex'),
};
