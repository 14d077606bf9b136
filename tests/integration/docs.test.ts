import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/process';

/** The README stays a page a newcomer reads in ten minutes; the rest lives in docs/. */
const README_MAX_LINES = 250;

/** README.md and every Markdown page under docs/, as paths from the project folder. */
function pages(): string[] {
  const found = ['README.md'];
  const walk = (dir: string): void => {
    for (const name of readdirSync(path.join(ROOT, dir)).sort()) {
      const rel = path.posix.join(dir, name);
      if (statSync(path.join(ROOT, rel)).isDirectory()) walk(rel);
      else if (name.endsWith('.md')) found.push(rel);
    }
  };
  walk('docs');
  return found;
}

/** The text outside fenced code blocks, with inline code spans blanked (a link there is no link). */
function prose(markdown: string): string {
  let fenced = false;
  return markdown
    .split('\n')
    .map((line) => {
      if (/^\s*(```|~~~)/.test(line)) {
        fenced = !fenced;
        return '';
      }
      return fenced ? '' : line.replace(/`[^`]*`/g, '``');
    })
    .join('\n');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens; repeats get -1, -2. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading?.[1] === undefined) continue;
    const text = heading[1].replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*]/g, '');
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** Every relative link target in a page: `[text](target)` and `![alt](target)`, outside code. */
function relativeLinks(markdown: string): string[] {
  const targets: string[] = [];
  for (const match of prose(markdown).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    const target = match[1];
    if (target === undefined || /^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    targets.push(target);
  }
  return targets;
}

/**
 * The project files a page names inside code spans (`server/db/batch.ts`): paths from the project folder
 * under its source folders, with a file extension. A folder, a glob or a path in prose is not counted.
 */
function namedFiles(markdown: string): string[] {
  const files: string[] = [];
  for (const span of markdown.matchAll(/`([^`\n]+)`/g)) {
    const match = /^((?:server|src|tests|bench|bin)\/[\w./-]*\.(?:ts|tsx|mjs|json|css))(?::\d+)?$/.exec(
      span[1] ?? '',
    );
    if (match?.[1] !== undefined) files.push(match[1]);
  }
  return files;
}

/** What is wrong with one link of `page`, or null when its file (and heading) exist. */
function brokenLink(page: string, target: string): string | null {
  const [file = '', anchor] = target.split('#', 2);
  const resolved = file === '' ? page : path.posix.normalize(path.posix.join(path.posix.dirname(page), file));
  if (resolved.startsWith('..')) return `${target}: outside the project`;
  const absolute = path.join(ROOT, resolved);
  if (!existsSync(absolute)) return `${target}: no such file (${resolved})`;
  if (anchor === undefined || anchor === '' || !resolved.endsWith('.md')) return null;
  const anchors = anchorsOf(readFileSync(absolute, 'utf8'));
  return anchors.has(decodeURIComponent(anchor)) ? null : `${target}: ${resolved} has no heading #${anchor}`;
}

describe('the README and docs/', () => {
  it(`keeps the README to ${README_MAX_LINES} lines`, () => {
    const lines = readFileSync(path.join(ROOT, 'README.md'), 'utf8').trimEnd().split('\n').length;
    expect(lines).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it('links only to files and headings that exist', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const page of pages()) {
      for (const target of relativeLinks(readFileSync(path.join(ROOT, page), 'utf8'))) {
        checked += 1;
        const problem = brokenLink(page, target);
        if (problem !== null) broken.push(`${page} → ${problem}`);
      }
    }
    expect(broken).toEqual([]);
    expect(checked).toBeGreaterThan(20);
  });

  it('names only source files that exist, so the map stays the code', () => {
    const missing: string[] = [];
    let named = 0;
    for (const page of ['README.md', 'docs/architecture.md', 'docs/trading.md', 'docs/testing.md']) {
      for (const file of namedFiles(readFileSync(path.join(ROOT, page), 'utf8'))) {
        named += 1;
        if (!existsSync(path.join(ROOT, file))) missing.push(`${page} → ${file}`);
      }
    }
    expect(missing).toEqual([]);
    expect(named).toBeGreaterThan(20);
  });

  it('finds a source file named in code spans and fences', () => {
    const page =
      'See `server/db/batch.ts` and `src/app/main.tsx:12`; ```\nserver/db/\n``` and server/x.ts in prose.';
    expect(namedFiles(page)).toEqual(['server/db/batch.ts', 'src/app/main.tsx']);
  });

  it('finds a broken file link and a broken heading link', () => {
    expect(brokenLink('README.md', 'docs/no-such-page.md')).toMatch(/no such file/);
    expect(brokenLink('README.md', 'docs/architecture.md#no-such-heading')).toMatch(/no heading/);
    expect(brokenLink('docs/trading.md', '../README.md#layout')).toBeNull();
    expect(brokenLink('docs/venues/README.md', 'okx.md')).toBeNull();
  });

  it('reads links and anchors as GitHub does', () => {
    const page = [
      '# Keys and rotation',
      "## Step-up: confirm it's you",
      '## Keys and rotation',
      '```sh',
      '# not a heading [x](nowhere.md)',
      '```',
      'See [a](a.md), ![b](img/b.png), [c](https://example.com), `[d](d.md)` and [e](#keys-and-rotation-1).',
    ].join('\n');
    expect([...anchorsOf(page)]).toEqual([
      'keys-and-rotation',
      'step-up-confirm-its-you',
      'keys-and-rotation-1',
    ]);
    expect(relativeLinks(page)).toEqual(['a.md', 'img/b.png', '#keys-and-rotation-1']);
  });
});
