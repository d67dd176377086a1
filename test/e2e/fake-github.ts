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
  if (!validate) compiled.set(schema, (validate = ajv.compile(schema)));
  return validate;
}

export interface FakeComment {
  id: number;
  body: string;
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
  private nextId = 1000;
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
      const value = /^-?\d+$/.test(raw) ? Number(raw) : raw;
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
    if (template === '/repos/{owner}/{repo}/issues/{issue_number}/comments' && method === 'get') {
      const perPage = Number(url.searchParams.get('per_page') ?? 30);
      const page = Number(url.searchParams.get('page') ?? 1);
      const pages = Math.max(1, Math.ceil(this.comments.length / perPage));
      const slice = this.comments.slice((page - 1) * perPage, page * perPage).map((c) => this.shape(template, c, params));
      const headers: Record<string, string> = {};
      if (page < pages)
        headers.link = `<${this.url}${url.pathname}?per_page=${perPage}&page=${page + 1}>; rel="next", <${this.url}${url.pathname}?per_page=${perPage}&page=${pages}>; rel="last"`;
      return [200, slice, headers];
    }
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
    this.problems.push(`${method.toUpperCase()} ${template}: the fake does not implement it`);
    return [404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' }];
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

function findOperation(
  pathname: string,
  method: string,
): { operation: Operation; params: Record<string, string>; template: string } | undefined {
  for (const [template, item] of Object.entries(loadSpec().paths)) {
    const names: string[] = [];
    const pattern = new RegExp(`^${template.replace(/\{([^}]+)\}/g, (_m, name: string) => (names.push(name), '([^/]+)'))}$`);
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
