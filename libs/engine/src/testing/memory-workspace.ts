import type { WorkspaceFiles } from '../kernel/ports.ts';

/**
 * A workspace over an in-memory file map, for the engine's tests without a file system:
 * paths are taken as written (no `..` or absolute path is inside it), and templates are the
 * map's `.agentwire/prompts/<name>.md` entries.
 */
export function memoryWorkspace(files: ReadonlyMap<string, string>): WorkspaceFiles {
  const templates = '.agentwire/prompts/';
  return {
    async readFile(requested) {
      if (requested.startsWith('/') || requested.split('/').includes('..')) {
        return { ok: false, reason: 'outside_workspace', message: 'it is outside the workspace' };
      }
      const text = files.get(requested);
      if (text === undefined) {
        return { ok: false, reason: 'not_found', message: 'no such file in the workspace' };
      }
      const bytes = new TextEncoder().encode(text).length;
      return { ok: true, file: { path: requested, mime: 'text/plain', text, bytes } };
    },
    async readPromptTemplate(name) {
      return files.get(`${templates}${name}.md`);
    },
    async listPromptTemplates() {
      return [...files.keys()]
        .filter((k) => k.startsWith(templates) && k.endsWith('.md'))
        .map((k) => k.slice(templates.length, -'.md'.length))
        .sort();
    },
  };
}
