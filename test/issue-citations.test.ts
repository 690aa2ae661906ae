import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import ts from 'typescript';

/**
 * Comments and test titles say what the rule is (the behaviour, the RFC, or "spec: <section>"), never which tracker
 * issue asked for it: an issue number means nothing to a reader without the tracker, and goes stale when the work
 * moves. Scans the comments of every source and test file and the titles of every describe and it.
 * (Public text — README, docs/, what the server serves — is checked by test/public-text.test.ts.)
 */

/** "issue 12", "Issues 3 and 4", "issue #7", "issue-12", "(#12)", "fixes #12", "PR #12". */
const CITATIONS = [/\bissues? ?#?\d+/gi, /\bissue-\d+/gi, /\(#\d+\)/g, /\b(?:PR|pull request|fix(?:es|ed)?|close[sd]?|resolve[sd]?|see) #\d+\b/gi];

function citations(text: string): string[] {
  return CITATIONS.flatMap((pattern) => [...text.matchAll(pattern)].map((match) => match[0]));
}

const ROOT = path.resolve(import.meta.dirname, '..');
const SCANNED = ['src', 'test', 'bin'];
const SKIPPED = new Set(['node_modules', 'generated', 'dist']);

function sourceFiles(directory: string): string[] {
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return SKIPPED.has(entry.name) ? [] : sourceFiles(full);
    return /\.(?:ts|js|mjs|cjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** mocha's suite and test functions, and this repository's wrappers of them (describeEachDatabase, …). */
function isTestFunction(callee: ts.Expression): boolean {
  const base = ts.isPropertyAccessExpression(callee) ? callee.expression : callee;
  return ts.isIdentifier(base) && /^(?:it|specify|context|describe\w*)$/.test(base.text);
}

/** Every comment of a file, and the title of every describe and it, each with its line. */
function commentsAndTitles(file: string): Array<{ line: number; text: string }> {
  const text = fs.readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found = new Map<number, string>();
  const addComments = (ranges: ts.CommentRange[] | undefined) => {
    for (const range of ranges ?? []) found.set(range.pos, text.slice(range.pos, range.end));
  };
  const visit = (node: ts.Node): void => {
    addComments(ts.getLeadingCommentRanges(text, node.pos));
    addComments(ts.getTrailingCommentRanges(text, node.end));
    if (ts.isCallExpression(node) && isTestFunction(node.expression)) {
      const title = node.arguments[0];
      if (title !== undefined && (ts.isStringLiteralLike(title) || ts.isTemplateExpression(title))) found.set(title.getStart(source), title.getText(source));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  addComments(ts.getLeadingCommentRanges(text, source.endOfFileToken.pos));
  return [...found].map(([position, passage]) => ({ line: source.getLineAndCharacterOfPosition(position).line + 1, text: passage }));
}

describe('comments and test titles cite no issue numbers', () => {
  it('the pattern catches citations and leaves other numbers alone', () => {
    for (const text of ['(issue 3)', 'Issues 4 and 5', 'issue #7', 'see issue-12', 'a fix (#12)', 'fixes #3', 'PR #40']) {
      expect(citations(text), text).to.have.length.greaterThan(0);
    }
    for (const text of ['tokens issued 3 minutes ago', 'RFC 7523 3 item 4', 'color: #111', 'school://host/me/courses#1', '&#39;', 'zod issues', 'issue a token']) {
      expect(citations(text), text).to.deep.equal([]);
    }
  });

  it('finds comments, titles, and nothing else', () => {
    const scratch = path.join(fs.mkdtempSync(path.join(ROOT, 'node_modules', '.issue-citations-')), 'sample.test.ts');
    try {
      fs.writeFileSync(scratch, "// one\nconst a = 'not a title'; /* two */\ndescribe(`three ${a}`, () => {\n  it('four', () => {}); // five\n});\n/** six */\n");
      expect(commentsAndTitles(scratch).map((found) => found.text)).to.have.members(['// one', '/* two */', '`three ${a}`', "'four'", '// five', '/** six */']);
    } finally {
      fs.rmSync(path.dirname(scratch), { recursive: true, force: true });
    }
  });

  it('in src/, test/ and bin/', function () {
    this.timeout(60_000);
    const self = path.resolve(import.meta.filename);
    const offences: string[] = [];
    for (const file of SCANNED.flatMap((directory) => sourceFiles(path.join(ROOT, directory)))) {
      if (file === self) continue;
      for (const { line, text } of commentsAndTitles(file)) {
        for (const citation of citations(text)) offences.push(`${path.relative(ROOT, file)}:${line}: ${citation}`);
      }
    }
    expect(offences, `cite the rule (behaviour, RFC, "spec: <section>") instead:\n${offences.join('\n')}\n`).to.deep.equal([]);
  });
});
