import MarkdownIt from 'markdown-it';

/**
 * Descriptions come from connector authors and, through them, from providers: Markdown is
 * rendered with raw HTML off (it shows as text), images off (the page makes no request),
 * and markdown-it's own link check (no `javascript:`, `vbscript:`, `file:` or `data:` links).
 */
const markdown = new MarkdownIt({ html: false, linkify: false, typographer: false }).disable('image');

const renderLink =
  markdown.renderer.rules.link_open ??
  ((tokens, index, options, _env, self) => self.renderToken(tokens, index, options));
markdown.renderer.rules.link_open = (tokens, index, options, env, self) => {
  // A provider's page opens apart from the catalogue, and is not told where the reader came from.
  tokens[index]!.attrSet('rel', 'noreferrer noopener');
  tokens[index]!.attrSet('target', '_blank');
  return renderLink(tokens, index, options, env, self);
};

/** Paragraphs, lists and code of a longer description. */
export function markdownBlock(text: string): string {
  return markdown.render(text);
}

/** One line of text with its emphasis, code and links. */
export function markdownInline(text: string): string {
  return markdown.renderInline(text);
}
