import { optionalTime, type ImportContext } from '../context.js';

/** Blog posts, keyed by (site, slug). */
export async function importPosts(ctx: ImportContext): Promise<void> {
  for (const post of ctx.document.posts ?? []) {
    await ctx.link(
      'posts',
      { site_id: ctx.siteId, slug: post.slug },
      { title: post.title, body: post.body, author_user_id: ctx.users.optional(post.author), status: post.status ?? 'draft', published_at: optionalTime(post.publishedAt) },
    );
  }
}

/** Static pages, keyed by (site, slug). */
export async function importPages(ctx: ImportContext): Promise<void> {
  for (const page of ctx.document.pages ?? []) {
    await ctx.link('pages', { site_id: ctx.siteId, slug: page.slug }, { title: page.title, body: page.body, status: page.status ?? 'draft' });
  }
}
