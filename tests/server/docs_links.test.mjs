// The documentation's relative links: every `[text](path)` and `[text](path#anchor)` in README.md and docs/*.md names a
// file or folder of the repository, and an anchor into a Markdown file names one of its headings (GitHub's slugs).
// Links to other sites are not fetched; code blocks and code spans are not read as links.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repository = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

function documents() {
  const docs = path.join(repository, 'docs');
  const names = fs.readdirSync(docs).filter((n) => n.endsWith('.md')).sort();
  return ['README.md', ...names.map((n) => path.join('docs', n))];
}

// Markdown without fenced code blocks and code spans, where `[x](y)` is an example, not a link.
function prose(markdown) {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

// GitHub's anchor for a heading: lower case, punctuation dropped (hyphens and underscores kept), spaces as hyphens.
function slug(heading) {
  return heading.replace(/`/g, '').trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

function anchors(file) {
  const text = fs.readFileSync(file, 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  const found = new Set();
  for (const m of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(m[1]);
    let name = base;
    for (let n = 1; found.has(name); n++) name = `${base}-${n}`;
    found.add(name);
  }
  return found;
}

function links(markdown) {
  return [...prose(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]);
}

function isExternal(target) {
  return /^[a-z][a-z0-9+.-]*:/i.test(target);
}

test('docs: README.md and docs/*.md exist, and the README links into docs/', () => {
  const files = documents();
  assert.ok(files.length > 1, 'docs/ holds no Markdown file');
  const readme = fs.readFileSync(path.join(repository, 'README.md'), 'utf8');
  assert.ok(links(readme).some((t) => t.startsWith('docs/')), 'README.md has no link into docs/');
});

test('docs: every relative link names an existing file, and every anchor a heading of its file', () => {
  const broken = [];
  let checked = 0;
  for (const doc of documents()) {
    const from = path.join(repository, doc);
    for (const target of links(fs.readFileSync(from, 'utf8'))) {
      if (isExternal(target)) continue;
      checked++;
      const [rawPath, anchor] = target.split('#', 2);
      const file = rawPath === '' ? from : path.resolve(path.dirname(from), decodeURI(rawPath.split('?')[0]));
      if (!file.startsWith(repository + path.sep) && file !== repository) {
        broken.push(`${doc}: ${target} (outside the repository)`);
        continue;
      }
      if (!fs.existsSync(file)) {
        broken.push(`${doc}: ${target} (no ${path.relative(repository, file)})`);
        continue;
      }
      if (anchor !== undefined && file.endsWith('.md') && !anchors(file).has(anchor)) {
        broken.push(`${doc}: ${target} (no heading #${anchor} in ${path.relative(repository, file)})`);
      }
    }
  }
  assert.ok(checked > 0, 'no relative link found: the link pattern no longer matches the documents');
  assert.deepEqual(broken, [], `broken links:\n${broken.join('\n')}`);
});

test('docs: the link reader finds links and skips code', () => {
  assert.deepEqual(links('see [cli](docs/cli.md#train) and [x](https://a.b/c)'), ['docs/cli.md#train', 'https://a.b/c']);
  assert.deepEqual(links('`[a dog](nowhere.md)`\n```\n[b](nowhere.md)\n```\n'), []);
  assert.equal(slug('Train on your own data (any corpus, any language)'), 'train-on-your-own-data-any-corpus-any-language');
  assert.equal(slug('In a C++ program'), 'in-a-c-program');
  assert.equal(slug('`attend` subcommands'), 'attend-subcommands');
});
