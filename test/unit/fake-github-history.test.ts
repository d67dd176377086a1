import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeGitHub } from '../e2e/fake-github.js';

// The fake's git data and issues, driven the way any client drives GitHub: plain requests, every request and
// answer checked against GitHub's OpenAPI description (fake.problems stays empty).
let fake: FakeGitHub;
let repo: string;

beforeAll(async () => {
  fake = await FakeGitHub.start();
  repo = `${fake.url}/repos/octo/todo`;
});

afterAll(async () => {
  await fake.close();
});

afterEach(() => {
  expect(fake.problems).toEqual([]);
  fake.refs.clear();
  fake.commits.clear();
  fake.trees.clear();
  fake.blobs.clear();
  fake.issues = [];
});

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: any; link: string | null }> {
  const response = await fetch(`${repo}${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: 'token t' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: await response.json(), link: response.headers.get('link') };
}

const decode = (content: string) => Buffer.from(content, 'base64').toString('utf8');

/** A commit setting `files` on top of `parent`'s tree, written blob, tree and commit as a client writes one. */
async function commit(files: Record<string, string>, parent: string | undefined, message = 'write'): Promise<string> {
  const baseTree = parent ? (await call('GET', `/git/commits/${parent}`)).json.tree.sha : undefined;
  const tree: unknown[] = [];
  for (const [path, text] of Object.entries(files)) {
    const blob = await call('POST', '/git/blobs', { content: text, encoding: 'utf-8' });
    expect(blob.status).toBe(201);
    tree.push({ path, mode: '100644', type: 'blob', sha: blob.json.sha });
  }
  const made = await call('POST', '/git/trees', { ...(baseTree ? { base_tree: baseTree } : {}), tree });
  expect(made.status).toBe(201);
  const created = await call('POST', '/git/commits', { message, tree: made.json.sha, parents: parent ? [parent] : [] });
  expect(created.status).toBe(201);
  return created.json.sha;
}

describe('git data', () => {
  it('creates a branch, writes a file through blob, tree, commit and ref, and reads it back', async () => {
    expect((await call('GET', '/git/ref/heads/benchgate-history')).status).toBe(404);
    const first = await commit({ 'gate/history.jsonl': '{"n":1}\n' }, undefined);
    expect(first).toMatch(/^[0-9a-f]{40}$/);
    const created = await call('POST', '/git/refs', { ref: 'refs/heads/benchgate-history', sha: first });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ ref: 'refs/heads/benchgate-history', object: { type: 'commit', sha: first } });
    expect(fake.refs.get('heads/benchgate-history')).toBe(first);

    // The ref as it is, and encoded as Octokit sends it.
    for (const path of ['/git/ref/heads/benchgate-history', '/git/ref/heads%2Fbenchgate-history'])
      expect((await call('GET', path)).json.object.sha).toBe(first);

    const file = await call('GET', '/contents/gate/history.jsonl?ref=benchgate-history');
    expect(file.status).toBe(200);
    expect(file.json).toMatchObject({ type: 'file', encoding: 'base64', name: 'history.jsonl', path: 'gate/history.jsonl', size: 8 });
    expect(decode(file.json.content)).toBe('{"n":1}\n');
    expect(fake.blobs.get(file.json.sha)).toBe('{"n":1}\n');
    const blob = await call('GET', `/git/blobs/${file.json.sha}`);
    expect(blob.json).toMatchObject({ encoding: 'base64', size: 8, sha: file.json.sha });
    expect(decode(blob.json.content)).toBe('{"n":1}\n');

    // A second commit on top: the base tree's files stay, the branch moves forward.
    const second = await commit({ 'gate/history.jsonl': '{"n":1}\n{"n":2}\n', 'other.jsonl': 'x\n' }, first);
    const read = await call('GET', `/git/commits/${second}`);
    expect(read.json.parents.map((p: { sha: string }) => p.sha)).toEqual([first]);
    expect([...fake.trees.get(read.json.tree.sha)!.keys()]).toEqual(['gate/history.jsonl', 'other.jsonl']);
    const moved = await call('PATCH', '/git/refs/heads/benchgate-history', { sha: second, force: false });
    expect(moved.status).toBe(200);
    expect(moved.json.object.sha).toBe(second);
    expect(fake.fileOn('benchgate-history', 'gate/history.jsonl')).toBe('{"n":1}\n{"n":2}\n');
    // Encoded path, and a commit's sha as the ref; the old commit still reads the old text.
    const encoded = await call('GET', `/contents/gate%2Fhistory.jsonl?ref=${second}`);
    expect(decode(encoded.json.content)).toBe('{"n":1}\n{"n":2}\n');
    expect(decode((await call('GET', `/contents/gate/history.jsonl?ref=${first}`)).json.content)).toBe('{"n":1}\n');

    expect((await call('GET', '/contents/gate/missing.jsonl?ref=benchgate-history')).status).toBe(404);
    expect((await call('GET', '/contents/gate/history.jsonl?ref=no-such-branch')).status).toBe(404);
    expect((await call('GET', `/git/commits/${'0'.repeat(40)}`)).status).toBe(404);
    expect((await call('GET', `/git/blobs/${'0'.repeat(40)}`)).status).toBe(404);
  });

  it('refuses a second branch of the same name, and a move that is not a fast-forward unless forced', async () => {
    const base = await commit({ 'h.jsonl': 'a\n' }, undefined);
    expect((await call('POST', '/git/refs', { ref: 'refs/heads/data', sha: base })).status).toBe(201);
    const again = await call('POST', '/git/refs', { ref: 'refs/heads/data', sha: base });
    expect(again.status).toBe(422);
    expect(again.json.message).toBe('Reference already exists');

    // Two writers read the same head; the first lands, the second's parent is stale.
    const mine = await commit({ 'h.jsonl': 'a\nmine\n' }, base);
    const theirs = await commit({ 'h.jsonl': 'a\ntheirs\n' }, base);
    expect((await call('PATCH', '/git/refs/heads/data', { sha: theirs })).status).toBe(200);
    const refused = await call('PATCH', '/git/refs/heads/data', { sha: mine });
    expect(refused.status).toBe(422);
    expect(refused.json.message).toBe('Update is not a fast forward');
    expect(fake.fileOn('data', 'h.jsonl')).toBe('a\ntheirs\n');
    // Merged on top of theirs, it lands; moving back is refused; forced, anything goes.
    const merged = await commit({ 'h.jsonl': 'a\ntheirs\nmine\n' }, theirs);
    expect((await call('PATCH', '/git/refs/heads/data', { sha: merged })).status).toBe(200);
    expect((await call('PATCH', '/git/refs/heads/data', { sha: base })).status).toBe(422);
    expect((await call('PATCH', '/git/refs/heads/data', { sha: base, force: true })).status).toBe(200);
    expect((await call('PATCH', '/git/refs/heads/absent', { sha: base })).status).toBe(422);
  });

  it('takes base64 blobs, content in tree entries and deletions, and leaves a large file out of the contents answer', async () => {
    const blob = await call('POST', '/git/blobs', { content: Buffer.from('héllo\n').toString('base64'), encoding: 'base64' });
    expect(fake.blobs.get(blob.json.sha)).toBe('héllo\n');
    // git's own name for the blob (git hash-object).
    expect(blob.json.sha).toBe('5fb50d3c93474f139362304b663fe44e9d17a26e');
    const tree = await call('POST', '/git/trees', {
      tree: [
        { path: 'a.txt', mode: '100644', type: 'blob', sha: blob.json.sha },
        { path: 'b/c.txt', mode: '100644', type: 'blob', content: 'inline' },
      ],
    });
    const trimmed = await call('POST', '/git/trees', {
      base_tree: tree.json.sha,
      tree: [{ path: 'a.txt', mode: '100644', type: 'blob', sha: null }],
    });
    expect([...fake.trees.get(trimmed.json.sha)!]).toEqual([['b/c.txt', fake.trees.get(tree.json.sha)!.get('b/c.txt')]]);

    const big = 'x'.repeat(1_000_001);
    fake.seedFile('big', 'h.jsonl', big);
    const large = await call('GET', '/contents/h.jsonl?ref=big');
    expect(large.json).toMatchObject({ encoding: 'none', content: '', size: 1_000_001 });
    // The blob itself still answers it whole.
    expect(decode((await call('GET', `/git/blobs/${large.json.sha}`)).json.content)).toBe(big);
  });

  it('answers forced failures for these operations first', async () => {
    const base = await commit({ 'h.jsonl': 'a\n' }, undefined);
    fake.refs.set('heads/data', base);
    fake.failures.push({ method: 'get', template: '/repos/{owner}/{repo}/git/ref/{ref}', status: 502 });
    expect((await call('GET', '/git/ref/heads/data')).status).toBe(502);
    expect((await call('GET', '/git/ref/heads/data')).status).toBe(200);
  });
});

describe('issues', () => {
  it('creates, lists by state and labels (paged), and updates issues', async () => {
    const first = await call('POST', '/issues', { title: 'Regression', body: 'slower', labels: ['benchgate', 'regression'] });
    expect(first.status).toBe(201);
    expect(first.json).toMatchObject({ number: 100, title: 'Regression', body: 'slower', state: 'open', user: { login: fake.author } });
    expect(first.json.labels.map((l: { name: string }) => l.name)).toEqual(['benchgate', 'regression']);
    expect(first.json.pull_request).toBeUndefined();
    await call('POST', '/issues', { title: 'Other', body: 'b', labels: ['benchgate'] });
    await call('POST', '/issues', { title: 'Third', body: 'c', labels: ['benchgate', 'regression'] });
    expect(fake.issues.map((i) => i.number)).toEqual([100, 101, 102]);

    const both = await call('GET', '/issues?state=open&labels=benchgate,regression&per_page=100');
    expect(both.json.map((i: { number: number }) => i.number)).toEqual([102, 100]);
    // One a page: the link names the next page with the same filters.
    const page1 = await call('GET', '/issues?state=open&labels=benchgate,regression&per_page=1');
    expect(page1.json.map((i: { number: number }) => i.number)).toEqual([102]);
    const next = /<([^>]+)>; rel="next"/.exec(page1.link ?? '')![1]!;
    expect(next).toContain('page=2');
    const page2 = await fetch(next);
    expect(((await page2.json()) as { number: number }[]).map((i) => i.number)).toEqual([100]);
    expect(page2.headers.get('link')).toBeNull();

    const closed = await call('PATCH', '/issues/100', { state: 'closed', body: 'fixed' });
    expect(closed.status).toBe(200);
    expect(closed.json).toMatchObject({ number: 100, state: 'closed', body: 'fixed', state_reason: 'completed' });
    expect(closed.json.closed_at).not.toBeNull();
    const renamed = await call('PATCH', '/issues/102', { title: 'Renamed' });
    expect(renamed.json).toMatchObject({ title: 'Renamed', body: 'c', state: 'open' });
    expect((await call('GET', '/issues?labels=regression')).json.map((i: { number: number }) => i.number)).toEqual([102]);
    expect((await call('GET', '/issues?state=closed')).json.map((i: { number: number }) => i.number)).toEqual([100]);
    expect((await call('GET', '/issues?state=all&direction=asc')).json.map((i: { number: number }) => i.number)).toEqual([100, 101, 102]);
    expect((await call('PATCH', '/issues/999', { state: 'closed' })).status).toBe(404);
  });
});
