import DOMPurify from 'dompurify';
import { marked } from 'marked';
import { useMemo } from 'preact/hooks';

// A link in a message opens beside the app, never in its place, and learns nothing of it.
DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A' && node.hasAttribute('href')) {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
});

/**
 * Markdown as the model wrote it: parsed by marked (GitHub-flavoured), then sanitised by
 * DOMPurify, since model output is untrusted text. Re-parsed when the text grows, so a
 * streamed message renders its Markdown as it arrives.
 */
export function Markdown({ text }: { readonly text: string }) {
  const html = useMemo(() => {
    const raw = marked.parse(text, { async: false, gfm: true, breaks: false });
    return DOMPurify.sanitize(raw, { USE_PROFILES: { html: true } });
  }, [text]);
  // Sanitised by DOMPurify just above.
  return <div class="markdown" dangerouslySetInnerHTML={{ __html: html }} />;
}
