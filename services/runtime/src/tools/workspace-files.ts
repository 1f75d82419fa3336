import { constants } from 'node:fs';
import { open, readdir } from 'node:fs/promises';
import path from 'node:path';
import { ToolError, type WorkspaceFileFailure, type WorkspaceFiles } from '@agentwire/engine';
import { resolveInWorkspace } from './workspace-path.ts';

/** Options of {@link createWorkspaceFiles}. */
export interface WorkspaceFilesOptions {
  /** The workspace root every path is confined to. */
  readonly root: string;
  /** Largest file an `@file` reference takes, in bytes (default 256 KiB). */
  readonly maxFileBytes?: number;
}

/** Where the workspace's prompt templates live (R12.1). */
const TEMPLATES_DIR = path.join('.agentwire', 'prompts');

const MIME_BY_EXTENSION: Readonly<Record<string, string>> = {
  '.md': 'text/markdown',
  '.json': 'application/json',
  '.html': 'text/html',
  '.css': 'text/css',
  '.csv': 'text/csv',
  '.xml': 'application/xml',
  '.yaml': 'application/yaml',
  '.yml': 'application/yaml',
};

type ReadResult = Awaited<ReturnType<WorkspaceFiles['readFile']>>;

function failure(reason: WorkspaceFileFailure, message: string): ReadResult {
  return { ok: false, reason, message };
}

/**
 * The session's workspace for submissions (R12.1): `@file` references and prompt templates,
 * confined to the root like the tools (symbolic links resolved and checked, the last
 * component opened without following a link, docs/decisions/0142). Only UTF-8 text is taken.
 */
export function createWorkspaceFiles(options: WorkspaceFilesOptions): WorkspaceFiles {
  const { root } = options;
  const maxBytes = options.maxFileBytes ?? 256 * 1024;

  async function readText(requested: string): Promise<ReadResult> {
    let resolved: Awaited<ReturnType<typeof resolveInWorkspace>>;
    try {
      resolved = await resolveInWorkspace(root, requested);
    } catch (err) {
      if (err instanceof ToolError) return failure('outside_workspace', err.message);
      throw err;
    }
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(resolved.absolute, constants.O_RDONLY | constants.O_NOFOLLOW);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return failure('not_found', 'no such file in the workspace');
      if (code === 'ELOOP') return failure('outside_workspace', 'it is a symbolic link');
      if (code === 'EISDIR') return failure('not_a_file', 'it is a directory');
      return failure('not_found', `cannot open it (${code ?? 'error'})`);
    }
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) return failure('not_a_file', 'it is not a regular file');
      if (stat.size > maxBytes) {
        return failure('too_large', `it holds ${stat.size} bytes; at most ${maxBytes} are taken`);
      }
      const bytes = await handle.readFile();
      let text: string;
      try {
        text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
      } catch {
        return failure('not_text', 'it is not UTF-8 text');
      }
      if (text.includes('\0')) return failure('not_text', 'it is not text (it holds NUL bytes)');
      const mime = MIME_BY_EXTENSION[path.extname(resolved.relative).toLowerCase()] ?? 'text/plain';
      return { ok: true, file: { path: resolved.relative, mime, text, bytes: bytes.length } };
    } finally {
      await handle.close();
    }
  }

  return {
    readFile: readText,
    async readPromptTemplate(name) {
      if (!/^[\w-]+$/.test(name)) return undefined;
      const read = await readText(path.join(TEMPLATES_DIR, `${name}.md`));
      return read.ok ? read.file.text : undefined;
    },
    async listPromptTemplates() {
      let dir: Awaited<ReturnType<typeof resolveInWorkspace>>;
      try {
        dir = await resolveInWorkspace(root, TEMPLATES_DIR);
      } catch {
        return [];
      }
      const entries = await readdir(dir.absolute, { withFileTypes: true }).catch(() => []);
      return entries
        .filter((e) => e.isFile() && e.name.endsWith('.md'))
        .map((e) => e.name.slice(0, -'.md'.length))
        .filter((n) => /^[\w-]+$/.test(n))
        .sort();
    },
  };
}
