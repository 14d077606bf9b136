import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { appError } from '../../plugins/errors';
import { REPLAY_AUTHORS, REPLAY_ITEMS, type ReplayEntry } from './sources/replay-data';
import { ASSET_BASE } from './sources/replay-source';

const ArticleParams = z.object({
  slug: z.string().regex(/^[a-z0-9][a-z0-9-]{0,80}$/, { error: 'an article name' }),
});

/** The page is inert: no script, nothing loaded from elsewhere. */
const PAGE_HEADERS = {
  'cache-control': 'public, max-age=3600',
  'x-content-type-options': 'nosniff',
  'content-security-policy':
    "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
} as const;

const escape = (text: string): string =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

function page(entry: ReplayEntry): string {
  const author = REPLAY_AUTHORS[entry.author];
  const paragraphs = (entry.body ?? '').split('\n\n').filter((p) => p.trim() !== '');
  const quote = entry.quote;
  const media = (entry.media ?? [])
    .map((m) => `<img src="${ASSET_BASE}/media/${escape(m)}" alt="">`)
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(entry.text)} · ${escape(author.source_name)}</title>
<style>
body{margin:0;background:#0b0e11;color:#eaecef;font:16px/1.6 system-ui,sans-serif}
main{max-width:42rem;margin:0 auto;padding:2rem 1.25rem}
.from{display:flex;gap:.6rem;align-items:center;color:#b7bdc6;font-size:.9rem}
.from img{width:28px;height:28px;border-radius:50%}
h1{font-size:1.5rem;line-height:1.3;margin:1rem 0}
blockquote{border-left:3px solid #474d57;margin:1rem 0;padding:.25rem 1rem;color:#b7bdc6}
main>img{max-width:100%;border-radius:6px;margin:.5rem 0}
.note{margin-top:2rem;padding-top:1rem;border-top:1px solid #2b3139;color:#848e9c;font-size:.85rem}
</style></head>
<body><main>
<div class="from"><img src="${ASSET_BASE}/icons/${escape(author.icon)}" alt=""><span>${escape(author.source_name)} · @${escape(author.username)}</span></div>
<h1>${escape(entry.text)}</h1>
${paragraphs.map((p) => `<p>${escape(p)}</p>`).join('\n')}
${quote === undefined ? '' : `<blockquote><strong>${escape(REPLAY_AUTHORS[quote.author].source_name)}</strong><br>${escape(quote.text)}</blockquote>`}
${media}
<p class="note">Replay feed: an item written for Signal Console's offline demo, not a real report. The outlet and people are fictional except for the exchanges' names.</p>
</main></body></html>`;
}

/** The replay items' article pages, so the card's source link and `open` work offline. */
export function registerArticleRoutes(instance: FastifyInstance): void {
  const app = instance.withTypeProvider<ZodTypeProvider>();
  const bySlug = new Map(REPLAY_ITEMS.map((e) => [e.slug, e]));
  const schema = {
    summary: 'The article page of a replay item',
    params: ArticleParams,
    response: { 200: { description: 'An HTML page', content: { 'text/html': { schema: z.string() } } } },
  };
  app.get('/news/articles/:slug', { schema }, async (request, reply) => {
    const { slug } = request.params;
    const entry = bySlug.get(slug);
    if (entry === undefined) throw appError('NOT_FOUND', 'No such article.');
    return reply.headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(page(entry));
  });
}
