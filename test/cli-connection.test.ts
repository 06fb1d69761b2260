/**
 * Connection controls of the built CLI, as a user meets them: pasted keys and URLs, wrong
 * schemes, refused keys, names that do not resolve, servers that never answer (--timeout,
 * --deadline), a private CA (--ca-file / GATEHOUSE_CA_FILE, with a CA made by openssl) and
 * proxies (HTTPS_PROXY, HTTP_PROXY, NO_PROXY, counted at a proxy; proxies that refuse or drop
 * the tunnel). One reference server runs in this process; the HTTPS endpoint is a TLS terminator
 * in front of it; the proxy forwards absolute-form requests and tunnels CONNECT, counting both.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer as createHttpServer, request as httpRequest, type Server as HttpServer } from 'node:http';
import { connect as netConnect, createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import { startServer, type RunningServer } from '@gatehouse/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir, besideUsage } from './helpers/cli.js';

const KEY = 'gh_test_connection_key';
const dir = tempDir('gatehouse-connection-');
const MANIFEST = join(dir.path, 'policy.yaml');
writeFileSync(MANIFEST, 'kind: IPPolicy\nname: office\nspec:\n  description: office\n  rules:\n    - action: allow\n      cidr: 10.0.0.0/8\n');

let api: RunningServer;
let httpsUrl: string;
let tlsServer: TlsServer;
let silent: NetServer;
let silentUrl: string;
let proxy: HttpServer;
let proxyUrl: string;
let tunnels = 0;
/** Absolute-form requests the proxy forwarded (`GET http://host:port/path`). */
const forwarded: string[] = [];
/** Proxies that allow CONNECT only to port 443 (Squid's default) and that drop every CONNECT. */
let squid: HttpServer;
let squidUrl: string;
let dropping: HttpServer;
let droppingUrl: string;
const sockets = new Set<Socket>();
let caFile: string;

const port = (server: { address(): AddressInfo | string | null }) => (server.address() as AddressInfo).port;
const listen = <S extends NetServer | HttpServer>(server: S) => new Promise<S>((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));

/** A CA and a certificate for 127.0.0.1 signed by it, made with openssl. */
function makeCertificates(): { ca: string; key: string; cert: string } {
  const at = (name: string) => join(dir.path, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', at('ca.key'), '-out', at('ca.pem'), '-days', '2', '-subj', '/CN=gatehouse test CA');
  openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', at('server.key'), '-out', at('server.csr'), '-subj', '/CN=127.0.0.1');
  writeFileSync(at('san.ext'), 'subjectAltName=IP:127.0.0.1\n');
  openssl(
    'x509',
    '-req',
    '-in',
    at('server.csr'),
    '-CA',
    at('ca.pem'),
    '-CAkey',
    at('ca.key'),
    '-CAcreateserial',
    '-out',
    at('server.pem'),
    '-days',
    '2',
    '-extfile',
    at('san.ext'),
  );
  const read = (name: string) => execFileSync('cat', [at(name)], { encoding: 'utf8' });
  return { ca: at('ca.pem'), key: read('server.key'), cert: read('server.pem') };
}

beforeAll(async () => {
  api = await startServer({ host: '127.0.0.1', port: 0, db: ':memory:', apiKeys: [KEY] });
  const apiPort = Number(new URL(api.url).port);
  const certs = makeCertificates();
  caFile = certs.ca;
  tlsServer = createTlsServer({ key: certs.key, cert: certs.cert }, (socket) => {
    sockets.add(socket);
    const upstream = netConnect(apiPort, '127.0.0.1');
    socket.pipe(upstream).pipe(socket);
    socket.on('error', () => upstream.destroy());
    upstream.on('error', () => socket.destroy());
  });
  await listen(tlsServer as unknown as NetServer);
  httpsUrl = `https://127.0.0.1:${port(tlsServer)}`;

  // Accepts connections and never answers.
  silent = createNetServer((socket) => sockets.add(socket));
  await listen(silent);
  silentUrl = `http://127.0.0.1:${port(silent)}`;

  // An HTTP proxy that forwards absolute-form requests and tunnels CONNECT, counting both.
  proxy = createHttpServer((req, res) => {
    forwarded.push(`${req.method} ${req.url}`);
    const upstream = httpRequest(req.url!, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  proxy.on('connect', (req, client: Socket) => {
    tunnels++;
    sockets.add(client);
    const [host, targetPort] = (req.url ?? '').split(':');
    const upstream = netConnect(Number(targetPort), host!, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.pipe(client).pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await listen(proxy);
  proxyUrl = `http://127.0.0.1:${port(proxy)}`;

  squid = createHttpServer((_req, res) => res.writeHead(501).end());
  squid.on('connect', (req, client: Socket) => {
    if (!(req.url ?? '').endsWith(':443')) client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
  });
  await listen(squid);
  squidUrl = `http://127.0.0.1:${port(squid)}`;
  dropping = createHttpServer((_req, res) => res.writeHead(501).end());
  dropping.on('connect', (_req, client: Socket) => client.destroy());
  await listen(dropping);
  droppingUrl = `http://127.0.0.1:${port(dropping)}`;
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  for (const server of [proxy, squid, dropping]) server?.closeAllConnections();
  await Promise.all([tlsServer, silent, proxy, squid, dropping].map((s) => new Promise((resolve) => s?.close(resolve))));
  await api?.close();
  dir.cleanup();
});

const plan = (env: Record<string, string>, ...flags: string[]) => runCli(['plan', MANIFEST, ...flags], { env });

describe('keys and URLs as pasted', () => {
  it('trims a key with a trailing newline and a URL with a trailing space', async () => {
    const result = await plan({ GATEHOUSE_API_URL: `${api.url} `, GATEHOUSE_API_KEY: `${KEY}\n` });
    expect(besideUsage(result.stderr)).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('+   IPPolicy office');
  });

  it('refuses a key with white space inside, naming the variable and never the key', async () => {
    const result = await plan({ GATEHOUSE_API_URL: api.url, GATEHOUSE_API_KEY: 'gh_secret part' });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('Error: GATEHOUSE_API_KEY has white space or control characters inside the key (not just around it); copy the key again\n');
  });

  it('names the variable or the flag that holds a bad URL, and never prints a TypeError', async () => {
    const fromVariable = await plan({ GATEHOUSE_API_URL: 'api.example.com', GATEHOUSE_API_KEY: KEY });
    expect(fromVariable.code).toBe(1);
    expect(fromVariable.stderr).toMatch(/^Error: GATEHOUSE_API_URL is not a URL: 'api\.example\.com'; expected http\(s\):\/\/host/);
    const fromFlag = await plan({ GATEHOUSE_API_KEY: KEY }, '--api-url', 'ftp://api.example.com');
    expect(fromFlag.stderr).toMatch(/^Error: --api-url must be an http:\/\/ or https:\/\/ URL, not ftp:/);
    expect(fromVariable.stderr + fromFlag.stderr).not.toContain('TypeError');
  });
});

describe('failures that would fail again are reported at once', () => {
  it('https:// at a plain-HTTP port: one attempt, names the host, says what to check', async () => {
    const url = api.url.replace('http:', 'https:');
    const result = await plan({ GATEHOUSE_API_URL: url, GATEHOUSE_API_KEY: KEY });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`the API failed: GET ${url}/`);
    expect(result.stderr).toContain('tls_error: TLS handshake failed (ERR_SSL_WRONG_VERSION_NUMBER: the server does not speak TLS at this port)');
    expect(result.stderr).not.toMatch(/attempts|try again later/);
  });

  it('a refused key (401): once, with what to check', async () => {
    const result = await plan({ GATEHOUSE_API_URL: api.url, GATEHOUSE_API_KEY: 'wrong' });
    expect(result.code).toBe(1);
    // The server's sentence says the key is not valid; the hint only says what to check.
    expect(result.stderr).toMatch(
      /^Error: the API failed: GET http:\/\/127\.0\.0\.1:\d+\/\S+: 401 \S+: The API key is not valid\.?; check GATEHOUSE_API_KEY \(or --api-key\); nothing was planned\n$/,
    );
    expect(result.stderr).not.toContain('was refused');
    expect(result.stderr).not.toMatch(/attempts|try again later/);
  });
});

describe('--timeout and --deadline', () => {
  it('a server that never answers fails after the deadline, naming it', async () => {
    const result = await plan({ GATEHOUSE_API_URL: silentUrl, GATEHOUSE_API_KEY: KEY, GATEHOUSE_DEADLINE: '1500ms' }, '--timeout', '400ms');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`the API failed: GET ${silentUrl}/`);
    expect(result.stderr).toMatch(/deadline_exceeded: .*; --deadline \(GATEHOUSE_DEADLINE\) passed/);
  });

  it('--timeout alone: a request makes its attempts, and the command ends once the API has been silent for five of them', async () => {
    const began = performance.now();
    const result = await plan({ GATEHOUSE_API_URL: silentUrl, GATEHOUSE_API_KEY: KEY }, '--timeout', '300ms');
    const elapsed = performance.now() - began;
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /timeout: .*the API has answered nothing for 1.5 s \(5 attempts' time\), so the client gave up on it.*; no answer within --timeout/,
    );
    // Five attempts of 300 ms, the backoffs between them, and the start of the CLI.
    expect(elapsed).toBeLessThan(1500 + 3750 + 3000);
  });

  it("an apply against a server that never answers ends as soon, its lock's requests and look-ups included", async () => {
    const began = performance.now();
    const result = await runCli(['apply', MANIFEST, '--yes', '--timeout', '300ms'], { env: { GATEHOUSE_API_URL: silentUrl, GATEHOUSE_API_KEY: KEY } });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/the API has answered nothing for 1.5 s/);
    expect(performance.now() - began).toBeLessThan(1500 + 3750 + 3000);
  });

  it('a --deadline adds no warning to a run that succeeds', async () => {
    const result = await plan({ GATEHOUSE_API_URL: api.url, GATEHOUSE_API_KEY: KEY }, '--deadline', '5m');
    expect(result.code).toBe(0);
    expect(besideUsage(result.stderr)).toBe('');
  });

  it('refuses a duration it cannot read, naming the flag', async () => {
    const result = await plan({ GATEHOUSE_API_URL: api.url, GATEHOUSE_API_KEY: KEY }, '--timeout', 'soon');
    expect(result.stderr).toBe("Error: --timeout 'soon' is not a duration; use e.g. 30s, 500ms or 2m\n");
  });
});

describe('a private CA', () => {
  it('is refused without --ca-file, trusted with it or with GATEHOUSE_CA_FILE', async () => {
    const env = { GATEHOUSE_API_URL: httpsUrl, GATEHOUSE_API_KEY: KEY };
    const [untrusted, byFlag, byVariable] = await Promise.all([plan(env), plan(env, '--ca-file', caFile), plan({ ...env, GATEHOUSE_CA_FILE: caFile })]);
    expect(untrusted.code).toBe(1);
    expect(untrusted.stderr).toMatch(
      /tls_error: TLS handshake failed \((SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT_LOCALLY): .*--ca-file/,
    );
    for (const trusted of [byFlag, byVariable]) {
      expect(besideUsage(trusted.stderr)).toBe('');
      expect(trusted.code).toBe(0);
      expect(trusted.stdout).toContain(`gatehouse plan for ${httpsUrl}`);
    }
    const missing = await plan({ ...env, GATEHOUSE_CA_FILE: join(dir.path, 'nope.pem') });
    expect(missing.stderr).toBe(`Error: cannot read GATEHOUSE_CA_FILE ${join(dir.path, 'nope.pem')}: ENOENT\n`);
  });
});

describe('proxies', () => {
  it('goes through HTTPS_PROXY, and around it for hosts in NO_PROXY', async () => {
    const env = { GATEHOUSE_API_URL: httpsUrl, GATEHOUSE_API_KEY: KEY, GATEHOUSE_CA_FILE: caFile, HTTPS_PROXY: proxyUrl };
    const before = tunnels;
    const proxied = await plan(env);
    expect(besideUsage(proxied.stderr)).toBe('');
    expect(proxied.code).toBe(0);
    const through = tunnels - before;
    expect(through).toBeGreaterThan(0);

    const bypassed = await plan({ ...env, NO_PROXY: '127.0.0.1' });
    expect(bypassed.code).toBe(0);
    expect(tunnels - before).toBe(through);
  });

  it('sends requests for an http:// API URL to HTTP_PROXY in absolute form, as curl does, not through a tunnel', async () => {
    const before = { tunnels, forwarded: forwarded.length };
    const result = await plan({ GATEHOUSE_API_URL: api.url, GATEHOUSE_API_KEY: KEY, HTTP_PROXY: proxyUrl });
    expect(besideUsage(result.stderr)).toBe('');
    expect(result.code).toBe(0);
    expect(tunnels).toBe(before.tunnels);
    expect(forwarded.slice(before.forwarded)).toContain(`GET ${api.url}/ip_policies?limit=100`);
  });

  it('an http:// API behind a proxy that allows CONNECT only to port 443 (Squid) still works', async () => {
    // Squid's default answers 403 to a tunnel to any other port; absolute form needs none.
    squid.removeAllListeners('request');
    squid.on('request', (req, res) => {
      const upstream = httpRequest(req.url!, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      });
      req.pipe(upstream);
    });
    const result = await plan({ GATEHOUSE_API_URL: api.url, GATEHOUSE_API_KEY: KEY, HTTP_PROXY: squidUrl });
    expect(besideUsage(result.stderr)).toBe('');
    expect(result.code).toBe(0);
  });

  it('a proxy that refuses the tunnel to an https:// API: an error at once that names the proxy, never its password', async () => {
    const began = performance.now();
    const proxyWithPassword = squidUrl.replace('http://', 'http://ops:hunter2@');
    const result = await plan({ GATEHOUSE_API_URL: httpsUrl, GATEHOUSE_API_KEY: KEY, HTTPS_PROXY: proxyWithPassword }, '--timeout', '5s');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `proxy_error: the proxy ${squidUrl} refused a tunnel to 127.0.0.1:${port(tlsServer)} (it answered 403 to CONNECT); the proxy must allow CONNECT to the API's port (Squid allows only 443 by default)`,
    );
    expect(result.stderr).toContain("name the API's host in NO_PROXY");
    expect(result.stderr).not.toContain('hunter2');
    expect(result.stderr).not.toMatch(/attempts/);
    expect(performance.now() - began).toBeLessThan(5000);
  });

  it('a proxy that drops the tunnel: an error that names the proxy, well within --timeout', async () => {
    const began = performance.now();
    const result = await plan({ GATEHOUSE_API_URL: httpsUrl, GATEHOUSE_API_KEY: KEY, HTTPS_PROXY: droppingUrl }, '--timeout', '5s');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`proxy_error: the proxy ${droppingUrl} closed the connection instead of opening a tunnel to 127.0.0.1:${port(tlsServer)}`);
    expect(performance.now() - began).toBeLessThan(5000);
  });

  it('refuses a proxy variable that is not a URL, without printing it', async () => {
    const result = await plan({ GATEHOUSE_API_URL: httpsUrl, GATEHOUSE_API_KEY: KEY, HTTPS_PROXY: 'ftp://ops:hunter2@proxy' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^Error: the proxy set for https:\/\/127\.0\.0\.1:\d+ \(HTTPS_PROXY, HTTP_PROXY or ALL_PROXY\) is not an http:\/\/ or https:\/\/ URL/,
    );
    expect(result.stderr).not.toContain('hunter2');
  });
});

describe('a host name that does not resolve', () => {
  it('is reported as a DNS failure, at once, not as a refused connection', async () => {
    const result = await plan({ GATEHOUSE_API_URL: 'http://gatehouse-test.invalid', GATEHOUSE_API_KEY: KEY });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('dns_error: DNS lookup of gatehouse-test.invalid failed (ENOTFOUND: no such name); check the host name in the API URL');
    expect(result.stderr).not.toMatch(/connection_refused|attempts/);
  });
});
