import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

/**
 * A local stand-in for api.github.com that cannot drift from the real API:
 * every request is matched to an operation of GitHub's published OpenAPI
 * description (@octokit/openapi) and its query and body validated against it,
 * and every response is shaped from that operation's example and validated
 * against its response schema before it is sent. Anything off is recorded in `problems`.
 *
 * Beside comments and pull requests it keeps a repository's git data (refs, commits, trees, blobs: enough for a
 * file on a data branch, written the way the Git Database API writes one) and its issues.
 */

type Operation = {
  parameters?: { in: string; name: string; schema: object }[];
  requestBody?: { content: Record<string, { schema: object }> };
  responses: Record<string, { content?: Record<string, { schema: object; examples?: Record<string, { value: unknown }> }> }>;
};
let spec: { paths: Record<string, Record<string, Operation>> } | undefined;
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addFormat('int32', true).addFormat('int64', true);
const compiled = new WeakMap<object, ValidateFunction>();

function loadSpec() {
  const file = createRequire(import.meta.url).resolve('@octokit/openapi/generated/api.github.com.deref.json');
  spec ??= JSON.parse(readFileSync(file, 'utf8'));
  return spec!;
}

function validator(schema: object): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) compiled.set(schema, (validate = ajv.compile(jsonSchema(schema) as object)));
  return validate;
}

/**
 * GitHub's description is OpenAPI 3.0, and three of its habits are not JSON Schema as Ajv reads it. `nullable`
 * beside a bare oneOf/anyOf (an issue's milestone, in the issue and in the body that creates one): Ajv refuses to
 * compile it. `nullable` on an enum that leaves null out (an open issue's state_reason, which GitHub sends as
 * null): Ajv refuses the null. And oneOf whose alternatives overlap (a blob's 422 is a Validation Error or a
 * Repository rule violation, and every error body is both): read as "exactly one", nothing GitHub sends could
 * match. Spelled out (null as an alternative, null in the enum, oneOf as anyOf), each means what GitHub sends.
 */
function jsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(jsonSchema);
  if (!node || typeof node !== 'object') return node;
  const { oneOf, ...rest } = node as Record<string, unknown>;
  const out: Record<string, unknown> = Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, jsonSchema(value)]));
  if (oneOf !== undefined) {
    if (out.anyOf === undefined) out.anyOf = jsonSchema(oneOf);
    else out.allOf = [...((out.allOf as unknown[] | undefined) ?? []), { anyOf: jsonSchema(oneOf) }];
  }
  if (out.nullable !== true) return out;
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...(out.enum as unknown[]), null];
  if (out.type !== undefined) return out;
  delete out.nullable;
  return { anyOf: [out, { type: 'null' }] };
}

/** A copy of the example GitHub gives for an operation's answer: the named one, or the first. */
function example(template: string, method: string, status: number, name?: string): any {
  const examples = loadSpec().paths[template]![method]!.responses[String(status)]!.content!['application/json']!.examples!;
  return structuredClone((name === undefined ? Object.values(examples)[0] : examples[name])!.value);
}

/** A git object's name as git computes it: the sha1 of its kind, its length and its content. */
function gitSha(kind: string, content: string): string {
  const data = Buffer.from(content, 'utf8');
  return createHash('sha1').update(`${kind} ${data.length}\0`).update(data).digest('hex');
}

/** Base64 as GitHub's blob and contents answers carry it: in lines of 60 characters, each ending in a newline. */
function base64Lines(text: string): string {
  return Buffer.from(text, 'utf8')
    .toString('base64')
    .replace(/.{1,60}/g, '$&\n');
}

const notFound = { message: 'Not Found', documentation_url: 'https://docs.github.com/rest', status: '404' };

/** A 422 as GitHub words it. */
function invalid(message: string) {
  return { message, documentation_url: 'https://docs.github.com/rest', status: '422' };
}

type Answer = [number, unknown, Record<string, string>?];

export interface FakeComment {
  id: number;
  body: string;
  user: { login: string };
}

export interface FakeIssue {
  number: number;
  title: string;
  body: string;
  state: 'open' | 'closed';
  labels: string[];
  user: { login: string };
}

export class FakeGitHub {
  readonly problems: string[] = [];
  readonly requests: string[] = [];
  /** The Authorization header of each request. */
  readonly authorizations: string[] = [];
  comments: FakeComment[] = [];
  /** Open pull requests, for GET /repos/{owner}/{repo}/pulls?head=owner:branch (a fork's, which workflow_run does not name). */
  pulls: { number: number; head: { owner: string; ref: string; sha: string } }[] = [];
  /** Answer comment creation with 403, as GitHub does for a fork's read-only token. */
  denyCreate = false;
  /** Who GET /user says the token is; undefined: 403, as for the default GITHUB_TOKEN and an app's installation token. */
  authenticatedAs: string | undefined = undefined;
  /** Who the comments this token creates are by: github-actions[bot] for the default token, <app>[bot] for an app's. */
  author = 'github-actions[bot]';
  /** Answers forced on the next matching requests, in order (a 502, a rate limit, a 422), before the normal answer. */
  failures: { method: string; template: string; status: number; headers?: Record<string, string>; message?: string }[] = [];
  /** Branches and tags as GitHub names them under refs/ ('heads/benchgate-history'), each to its commit's sha. */
  refs = new Map<string, string>();
  commits = new Map<string, { tree: string; parents: string[]; message: string }>();
  /** Trees, flat: each file's whole path ('a/b.json') to its blob's sha. */
  trees = new Map<string, Map<string, string>>();
  /** Blobs' text (utf-8), by sha: git's own sha of the text, so equal files share one, as in git. */
  blobs = new Map<string, string>();
  issues: FakeIssue[] = [];
  private nextId = 1000;
  private nextIssue = 100;
  /** Part of each commit's sha, so that two commits of the same tree, parents and message differ, as their times make them on GitHub. */
  private commitCount = 0;
  private server!: http.Server;
  url = '';

  static async start(): Promise<FakeGitHub> {
    const fake = new FakeGitHub();
    loadSpec();
    fake.server = http.createServer((req, res) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString()));
      req.on('end', () => fake.handle(req, res, text));
    });
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', () => resolve()));
    fake.url = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}`;
    return fake;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** Comments by someone else, some carrying benchgate's marker, to make paging and author matching matter. */
  seed(count: number, marker: string): void {
    for (let i = 0; i < count; i++)
      this.comments.push({
        id: this.nextId++,
        body: i % 10 === 0 ? `quoting: ${marker}` : `comment ${i}`,
        user: { login: `reviewer-${i % 3}` },
      });
  }

  ours(login = 'github-actions[bot]'): FakeComment[] {
    return this.comments.filter((c) => c.user.login === login);
  }

  /** Commits `text` as `file` on `branch` (made when missing) on top of what the branch holds, as a client writing through the API would; answers the commit. */
  seedFile(branch: string, file: string, text: string): string {
    const head = this.refs.get(`heads/${branch}`);
    const files = new Map(head ? this.trees.get(this.commits.get(head)!.tree) : undefined);
    files.set(file, this.storeBlob(text));
    const commit = this.storeCommit(this.storeTree(files), head ? [head] : [], `seed ${file}`);
    this.refs.set(`heads/${branch}`, commit);
    return commit;
  }

  /** The text of `file` on `branch`, or undefined when either is missing. */
  fileOn(branch: string, file: string): string | undefined {
    const head = this.refs.get(`heads/${branch}`);
    const blob = head === undefined ? undefined : this.trees.get(this.commits.get(head)!.tree)!.get(file);
    return blob === undefined ? undefined : this.blobs.get(blob);
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse, text: string): void {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const method = (req.method ?? 'GET').toLowerCase();
    this.requests.push(`${req.method} ${url.pathname}${url.search}`);
    this.authorizations.push(req.headers.authorization ?? '');
    const match = findOperation(url.pathname, method);
    if (!match) {
      this.problems.push(`${req.method} ${url.pathname}: no such operation in GitHub's OpenAPI description`);
      return this.send(res, 404, { message: 'Not Found' });
    }
    const { operation, params, template } = match;
    for (const parameter of operation.parameters ?? []) {
      if (parameter.in !== 'query' || !url.searchParams.has(parameter.name)) continue;
      const raw = url.searchParams.get(parameter.name)!;
      // A query is text: a number only where GitHub asks for one (milestone=3 and labels=2024 stay strings).
      const numeric = ['integer', 'number'].includes((parameter.schema as { type?: string }).type ?? '');
      const value = numeric && /^-?\d+$/.test(raw) ? Number(raw) : raw;
      this.check(validator(parameter.schema), value, `${req.method} ${template} query ${parameter.name}`);
    }
    let body: any;
    if (operation.requestBody) {
      try {
        body = JSON.parse(text);
      } catch {
        this.problems.push(`${req.method} ${template}: body is not JSON`);
      }
      this.check(validator(operation.requestBody.content['application/json']!.schema), body, `${req.method} ${template} request body`);
    }
    const [status, payload, headers] = this.respond(method, template, params, url, body);
    const schema = operation.responses[String(status)]?.content?.['application/json']?.schema;
    // A 5xx is any operation's possible answer, documented or not.
    if (!operation.responses[String(status)] && status < 500)
      this.problems.push(`${req.method} ${template}: status ${status} is not one GitHub documents`);
    if (schema) this.check(validator(schema), payload, `${req.method} ${template} response ${status}`);
    this.send(res, status, payload, headers);
  }

  private respond(
    method: string,
    template: string,
    params: Record<string, string>,
    url: URL,
    body: any,
  ): [number, unknown, Record<string, string>?] {
    const forbidden = {
      message: 'Resource not accessible by integration',
      documentation_url: 'https://docs.github.com/rest',
      status: '403',
    };
    const failure = this.failures.findIndex((f) => f.method === method && f.template === template);
    if (failure >= 0) {
      const [f] = this.failures.splice(failure, 1);
      return [f!.status, { message: f!.message ?? 'Server Error', documentation_url: 'https://docs.github.com/rest' }, f!.headers];
    }
    if (template === '/user' && method === 'get') {
      if (!this.authenticatedAs) return [403, forbidden];
      const examples = loadSpec().paths[template]!.get!.responses['200']!.content!['application/json']!.examples!;
      return [200, { ...structuredClone(Object.values(examples)[0]!.value as object), login: this.authenticatedAs }];
    }
    if (template === '/repos/{owner}/{repo}/issues/{issue_number}/comments' && method === 'get')
      return this.paginate(this.comments, url, (c) => this.shape(template, c, params));
    if (template === '/repos/{owner}/{repo}/issues/{issue_number}/comments' && method === 'post') {
      if (this.denyCreate) return [403, forbidden];
      const comment = { id: this.nextId++, body: String(body?.body), user: { login: this.author } };
      this.comments.push(comment);
      return [201, this.shape(template, comment, params)];
    }
    if (template === '/repos/{owner}/{repo}/issues/comments/{comment_id}' && method === 'patch') {
      const comment = this.comments.find((c) => c.id === Number(params.comment_id));
      if (!comment) return [404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' }];
      comment.body = String(body?.body);
      return [200, this.shape(template, comment, params)];
    }
    if (template === '/repos/{owner}/{repo}/pulls' && method === 'get') {
      const example = loadSpec().paths[template]!.get!.responses['200']!.content!['application/json']!.examples!.default!.value as Record<
        string,
        any
      >[];
      const wanted = url.searchParams.get('head');
      const found = this.pulls.filter((pr) => !wanted || `${pr.head.owner}:${pr.head.ref}` === wanted);
      // GitHub's own example lists a team without the 'type' its schema requires: no teams here.
      return [
        200,
        found.map((pr) => ({
          ...structuredClone(example[0]!),
          requested_teams: [],
          number: pr.number,
          head: { ...structuredClone(example[0]!.head), label: `${pr.head.owner}:${pr.head.ref}`, ref: pr.head.ref, sha: pr.head.sha },
        })),
      ];
    }
    const answer = this.gitData(method, template, params, url, body) ?? this.issueData(method, template, params, url, body);
    if (answer) return answer;
    this.problems.push(`${method.toUpperCase()} ${template}: the fake does not implement it`);
    return [404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' }];
  }

  /**
   * The Git Database API (refs, commits, trees, blobs) and the contents API over `refs`, `commits`, `trees` and
   * `blobs`: what a client needs to keep a file on a data branch. Trees hold files only (mode 100644).
   */
  private gitData(method: string, template: string, params: Record<string, string>, url: URL, body: any): Answer | undefined {
    const repo = `${this.url}/repos/${params.owner}/${params.repo}`;
    const web = `https://github.com/${params.owner}/${params.repo}`;
    const ref = (name: string, sha: string) => ({
      ...example(template, method, method === 'post' ? 201 : 200),
      ref: `refs/${name}`,
      node_id: Buffer.from(`ref:${name}`).toString('base64'),
      url: `${repo}/git/refs/${name}`,
      object: { type: 'commit', sha, url: `${repo}/git/commits/${sha}` },
    });
    switch (`${method} ${template.replace('/repos/{owner}/{repo}/', '')}`) {
      case 'get git/ref/{ref}': {
        const sha = this.refs.get(params.ref!);
        return sha === undefined ? [404, notFound] : [200, ref(params.ref!, sha)];
      }
      case 'post git/refs': {
        // GitHub's rule: the full name, starting with refs and holding at least two slashes.
        if (!/^refs\/[^/]+\/./.test(String(body?.ref))) return [422, invalid('Reference name is invalid')];
        const name = String(body.ref).slice('refs/'.length);
        if (!this.commits.has(String(body.sha))) return [422, invalid('Object does not exist')];
        if (this.refs.has(name)) return [422, invalid('Reference already exists')];
        this.refs.set(name, String(body.sha));
        return [201, ref(name, String(body.sha))];
      }
      case 'patch git/refs/{ref}': {
        // GitHub documents no 404 here: a missing ref is a 422.
        const current = this.refs.get(params.ref!);
        if (current === undefined) return [422, invalid('Reference does not exist')];
        const sha = String(body?.sha);
        if (!this.commits.has(sha)) return [422, invalid('Object does not exist')];
        if (body?.force !== true && !this.descends(sha, current)) return [422, invalid('Update is not a fast forward')];
        this.refs.set(params.ref!, sha);
        return [200, ref(params.ref!, sha)];
      }
      case 'post git/blobs': {
        const encoding = body?.encoding ?? 'utf-8';
        if (encoding !== 'utf-8' && encoding !== 'base64') return [422, invalid(`encoding must be utf-8 or base64, not ${encoding}`)];
        const text = encoding === 'base64' ? Buffer.from(String(body.content), 'base64').toString('utf8') : String(body?.content);
        const sha = this.storeBlob(text);
        return [201, { ...example(template, method, 201), sha, url: `${repo}/git/blobs/${sha}` }];
      }
      case 'get git/blobs/{file_sha}': {
        const text = this.blobs.get(params.file_sha!);
        if (text === undefined) return [404, notFound];
        const sha = params.file_sha!;
        return [
          200,
          {
            ...example(template, method, 200),
            content: base64Lines(text),
            encoding: 'base64',
            url: `${repo}/git/blobs/${sha}`,
            sha,
            size: Buffer.byteLength(text),
            node_id: Buffer.from(`blob:${sha}`).toString('base64'),
          },
        ];
      }
      case 'post git/trees': {
        const base = body?.base_tree === undefined ? new Map<string, string>() : this.trees.get(String(body.base_tree));
        if (!base) return [422, invalid('base_tree is not a valid tree oid')];
        const files = new Map(base);
        for (const entry of (body?.tree ?? []) as {
          path?: string;
          mode?: string;
          type?: string;
          sha?: string | null;
          content?: string;
        }[]) {
          if (entry.type !== 'blob' || entry.mode !== '100644') {
            this.problems.push(`POST ${template}: the fake keeps files only (type blob, mode 100644), not ${entry.type} ${entry.mode}`);
            return [422, invalid('tree entry is not a file')];
          }
          const path = String(entry.path);
          if (entry.content !== undefined && entry.sha !== undefined)
            return [422, invalid('Must supply either tree.sha or tree.content, not both')];
          if (entry.content !== undefined) files.set(path, this.storeBlob(entry.content));
          else if (entry.sha === null) files.delete(path);
          else if (entry.sha !== undefined && this.blobs.has(entry.sha)) files.set(path, entry.sha);
          else return [422, invalid(`tree.sha ${entry.sha} is not a valid blob`)];
        }
        const sha = this.storeTree(files);
        return [
          201,
          {
            ...example(template, method, 201),
            sha,
            url: `${repo}/git/trees/${sha}`,
            // Flat, as GitHub lists a tree with ?recursive=1, less the folders' own entries.
            tree: [...files].map(([path, blob]) => ({
              path,
              mode: '100644',
              type: 'blob',
              size: Buffer.byteLength(this.blobs.get(blob)!),
              sha: blob,
              url: `${repo}/git/blobs/${blob}`,
            })),
            truncated: false,
          },
        ];
      }
      case 'post git/commits': {
        const tree = String(body?.tree);
        const parents = ((body?.parents ?? []) as unknown[]).map(String);
        if (!this.trees.has(tree)) return [422, invalid('Tree SHA does not exist')];
        if (parents.some((parent) => !this.commits.has(parent)))
          return [422, invalid('Parent SHA does not exist or is not a commit object')];
        return [201, this.commitShape(template, method, 201, this.storeCommit(tree, parents, String(body?.message)), repo, web)];
      }
      case 'get git/commits/{commit_sha}':
        if (!this.commits.has(params.commit_sha!)) return [404, notFound];
        return [200, this.commitShape(template, method, 200, params.commit_sha!, repo, web)];
      case 'get contents/{path}': {
        // Without ref, the default branch: main here.
        const at = url.searchParams.get('ref') ?? 'main';
        const commit = this.resolve(at);
        if (commit === undefined) return [404, { ...notFound, message: `No commit found for the ref ${at}` }];
        const path = params.path!;
        const files = this.trees.get(this.commits.get(commit)!.tree)!;
        const blob = files.get(path);
        if (blob === undefined) {
          if ([...files.keys()].some((file) => file.startsWith(`${path}/`)))
            this.problems.push(`GET ${template}: ${path} is a folder, and the fake does not list folders`);
          return [404, notFound];
        }
        const text = this.blobs.get(blob)!;
        const size = Buffer.byteLength(text);
        // Over 1 MB GitHub leaves the content out of its JSON answer (the raw media type has it).
        const large = size > 1_000_000;
        const links = {
          self: `${repo}/contents/${encodeURI(path)}?ref=${encodeURIComponent(at)}`,
          git: `${repo}/git/blobs/${blob}`,
          html: `${web}/blob/${encodeURIComponent(at)}/${encodeURI(path)}`,
        };
        return [
          200,
          {
            ...example(template, method, 200, 'response-if-content-is-a-file'),
            type: 'file',
            encoding: large ? 'none' : 'base64',
            size,
            name: path.split('/').pop(),
            path,
            content: large ? '' : base64Lines(text),
            sha: blob,
            url: links.self,
            git_url: links.git,
            html_url: links.html,
            download_url: `https://raw.githubusercontent.com/${params.owner}/${params.repo}/${encodeURIComponent(at)}/${encodeURI(path)}`,
            _links: links,
          },
        ];
      }
    }
    return undefined;
  }

  /** Issues over `issues`: listing (by state, labels and creator), creating and editing. */
  private issueData(method: string, template: string, params: Record<string, string>, url: URL, body: any): Answer | undefined {
    if (template === '/repos/{owner}/{repo}/issues' && method === 'get') {
      // Filters the fake does not apply would answer more than GitHub does: say so rather than pass quietly.
      for (const name of ['milestone', 'assignee', 'type', 'mentioned', 'since', 'issue_field_values'])
        if (url.searchParams.has(name)) this.problems.push(`GET ${template}: the fake does not filter by ${name}`);
      if ((url.searchParams.get('sort') ?? 'created') !== 'created') this.problems.push(`GET ${template}: the fake sorts by creation only`);
      const state = url.searchParams.get('state') ?? 'open';
      // Several labels: issues with all of them; GitHub matches label names whatever their case.
      const labels = (url.searchParams.get('labels') ?? '')
        .split(',')
        .map((label) => label.trim().toLowerCase())
        .filter(Boolean);
      const creator = url.searchParams.get('creator');
      const found = this.issues
        .filter(
          (issue) =>
            (state === 'all' || issue.state === state) &&
            labels.every((label) => issue.labels.some((has) => has.toLowerCase() === label)) &&
            (creator === null || issue.user.login === creator),
        )
        // Newest first unless asked otherwise, as GitHub lists them.
        .sort((a, b) => (url.searchParams.get('direction') === 'asc' ? a.number - b.number : b.number - a.number));
      return this.paginate(found, url, (issue) => this.issueShape(template, method, 200, issue, params));
    }
    if (template === '/repos/{owner}/{repo}/issues' && method === 'post') {
      const number = Math.max(this.nextIssue, ...this.issues.map((issue) => issue.number + 1));
      this.nextIssue = number + 1;
      const issue: FakeIssue = {
        number,
        title: String(body?.title),
        body: String(body?.body ?? ''),
        state: 'open',
        labels: ((body?.labels ?? []) as (string | { name?: string })[]).map((label) =>
          typeof label === 'string' ? label : String(label.name),
        ),
        user: { login: this.author },
      };
      this.issues.push(issue);
      return [201, this.issueShape(template, method, 201, issue, params)];
    }
    if (template === '/repos/{owner}/{repo}/issues/{issue_number}' && method === 'patch') {
      const issue = this.issues.find((i) => i.number === Number(params.issue_number));
      if (!issue) return [404, notFound];
      if (typeof body?.title === 'string' || typeof body?.title === 'number') issue.title = String(body.title);
      if (body?.body !== undefined) issue.body = String(body.body ?? '');
      if (body?.state === 'open' || body?.state === 'closed') issue.state = body.state;
      if (Array.isArray(body?.labels))
        issue.labels = (body.labels as (string | { name?: string })[]).map((label) =>
          typeof label === 'string' ? label : String(label.name),
        );
      return [200, this.issueShape(template, method, 200, issue, params)];
    }
    return undefined;
  }

  /** One page of a listing (per_page, page), with the link header GitHub sends (next and last) while more follow. */
  private paginate<T>(items: T[], url: URL, shape: (item: T) => unknown): Answer {
    const perPage = Number(url.searchParams.get('per_page') ?? 30);
    const page = Number(url.searchParams.get('page') ?? 1);
    const pages = Math.max(1, Math.ceil(items.length / perPage));
    const at = (n: number) => {
      const link = new URL(url);
      link.searchParams.set('per_page', String(perPage));
      link.searchParams.set('page', String(n));
      return `<${this.url}${link.pathname}${link.search}>`;
    };
    const headers: Record<string, string> = {};
    if (page < pages) headers.link = `${at(page + 1)}; rel="next", ${at(pages)}; rel="last"`;
    return [200, items.slice((page - 1) * perPage, page * perPage).map(shape), headers];
  }

  /** Whether `sha` is `ancestor` or has it among its parents' parents: a move from `ancestor` to it is a fast-forward. */
  private descends(sha: string, ancestor: string): boolean {
    const seen = new Set<string>();
    const queue = [sha];
    while (queue.length > 0) {
      const next = queue.pop()!;
      if (next === ancestor) return true;
      if (seen.has(next)) continue;
      seen.add(next);
      queue.push(...(this.commits.get(next)?.parents ?? []));
    }
    return false;
  }

  /** A commit's sha for a ref as the contents API takes one: a commit's sha, a branch or a tag (with or without refs/). */
  private resolve(ref: string): string | undefined {
    if (/^[0-9a-f]{40}$/.test(ref) && this.commits.has(ref)) return ref;
    const name = ref.replace(/^refs\//, '');
    return this.refs.get(name) ?? this.refs.get(`heads/${name}`) ?? this.refs.get(`tags/${name}`);
  }

  private storeBlob(text: string): string {
    const sha = gitSha('blob', text);
    this.blobs.set(sha, text);
    return sha;
  }

  private storeTree(files: Map<string, string>): string {
    const sorted = new Map([...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    const sha = gitSha('tree', JSON.stringify([...sorted]));
    this.trees.set(sha, sorted);
    return sha;
  }

  private storeCommit(tree: string, parents: string[], message: string): string {
    const sha = gitSha('commit', JSON.stringify({ tree, parents, message, count: this.commitCount++ }));
    this.commits.set(sha, { tree, parents, message });
    return sha;
  }

  /** A commit shaped like GitHub's example for this operation, with our sha, tree, parents and message. */
  private commitShape(template: string, method: string, status: number, sha: string, repo: string, web: string): unknown {
    const commit = this.commits.get(sha)!;
    return {
      ...example(template, method, status),
      sha,
      node_id: Buffer.from(`commit:${sha}`).toString('base64'),
      url: `${repo}/git/commits/${sha}`,
      html_url: `${web}/commit/${sha}`,
      message: commit.message,
      tree: { sha: commit.tree, url: `${repo}/git/trees/${commit.tree}` },
      parents: commit.parents.map((parent) => ({ sha: parent, url: `${repo}/git/commits/${parent}`, html_url: `${web}/commit/${parent}` })),
    };
  }

  /** An issue shaped like GitHub's example for this operation, with our number, title, body, state, labels and author. */
  private issueShape(template: string, method: string, status: number, issue: FakeIssue, params: Record<string, string>): unknown {
    const given = example(template, method, status);
    const base = Array.isArray(given) ? given[0] : given;
    const repo = `${this.url}/repos/${params.owner}/${params.repo}`;
    const at = `${repo}/issues/${issue.number}`;
    const user = { ...base.user, login: issue.user.login, type: issue.user.login.endsWith('[bot]') ? 'Bot' : 'User' };
    const closed = issue.state === 'closed';
    // GitHub's example issue is a pull request (an issue has no pull_request) and carries octocat's repository, which these answers leave out.
    delete base.pull_request;
    delete base.repository;
    return {
      ...base,
      id: 500_000 + issue.number,
      node_id: `I_${issue.number}`,
      url: at,
      repository_url: repo,
      labels_url: `${at}/labels{/name}`,
      comments_url: `${at}/comments`,
      events_url: `${at}/events`,
      html_url: `https://github.com/${params.owner}/${params.repo}/issues/${issue.number}`,
      number: issue.number,
      state: issue.state,
      title: issue.title,
      body: issue.body,
      user,
      labels: issue.labels.map((name, i) => ({
        ...base.labels[0],
        id: 700_000 + i,
        node_id: `LA_${name}`,
        url: `${repo}/labels/${encodeURIComponent(name)}`,
        name,
        description: null,
        default: false,
      })),
      assignee: null,
      assignees: [],
      milestone: null,
      locked: false,
      active_lock_reason: null,
      comments: 0,
      pinned_comment: null,
      closed_at: closed ? base.updated_at : null,
      closed_by: closed ? user : null,
      state_reason: closed ? 'completed' : null,
    };
  }

  /** A comment shaped like GitHub's own example for this operation, with our id, body and author. */
  private shape(template: string, comment: FakeComment, params: Record<string, string>): unknown {
    const operation = loadSpec().paths['/repos/{owner}/{repo}/issues/comments/{comment_id}']!.get!;
    const example = structuredClone(operation.responses['200']!.content!['application/json']!.examples!.default!.value) as Record<
      string,
      any
    >;
    const issue = params.issue_number ?? '1';
    return {
      ...example,
      id: comment.id,
      node_id: `IC_${comment.id}`,
      body: comment.body,
      user: { ...example.user, login: comment.user.login, type: comment.user.login.endsWith('[bot]') ? 'Bot' : 'User' },
      url: `${this.url}/repos/${params.owner}/${params.repo}/issues/comments/${comment.id}`,
      html_url: `https://github.com/${params.owner}/${params.repo}/pull/${issue}#issuecomment-${comment.id}`,
      issue_url: `${this.url}/repos/${params.owner}/${params.repo}/issues/${issue}`,
      ...(template ? {} : {}),
    };
  }

  private check(validate: ValidateFunction, value: unknown, what: string): void {
    if (!validate(value)) this.problems.push(`${what}: ${ajv.errorsText(validate.errors)}`);
  }

  private send(res: http.ServerResponse, status: number, payload: unknown, headers: Record<string, string> = {}): void {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
    res.end(JSON.stringify(payload));
  }
}

/** Parameters GitHub documents as possibly holding slashes: a ref ('heads/x'), a file's path ('a/b.json'). Octokit sends them encoded (%2F), other clients as they are. */
const SLASHED = new Set(['ref', 'path']);

function findOperation(
  pathname: string,
  method: string,
): { operation: Operation; params: Record<string, string>; template: string } | undefined {
  // Slashes inside a parameter only when nothing matches without: /commits/{ref}/status is never /commits/{ref} of 'x/status'.
  return matchOperation(pathname, method, false) ?? matchOperation(pathname, method, true);
}

function matchOperation(
  pathname: string,
  method: string,
  slashed: boolean,
): { operation: Operation; params: Record<string, string>; template: string } | undefined {
  for (const [template, item] of Object.entries(loadSpec().paths)) {
    const names: string[] = [];
    const pattern = new RegExp(
      `^${template.replace(/\{([^}]+)\}/g, (_m, name: string) => (names.push(name), slashed && SLASHED.has(name) ? '(.+)' : '([^/]+)'))}$`,
    );
    const match = pattern.exec(pathname);
    if (!match || !item[method]) continue;
    return {
      operation: item[method],
      params: Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(match[i + 1]!)])),
      template,
    };
  }
  return undefined;
}
