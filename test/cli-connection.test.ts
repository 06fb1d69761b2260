/**
 * Connection controls of the built CLI, as a user meets them: pasted keys and URLs, wrong
 * schemes, refused keys, servers that never answer (--timeout, --deadline), a private CA
 * (--ca-file / GATEHOUSE_CA_FILE, with a CA made by openssl) and proxies (HTTPS_PROXY,
 * HTTP_PROXY, NO_PROXY, counted at a proxy). One reference server runs in this process; the
 * HTTPS endpoint is a TLS terminator in front of it, the proxy a CONNECT tunnel that counts.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { connect as netConnect, createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import { startServer, type RunningServer } from '@gatehouse/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from './helpers/cli.js';

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
  openssl('x509', '-req', '-in', at('server.csr'), '-CA', at('ca.pem'), '-CAkey', at('ca.key'), '-CAcreateserial', '-out', at('server.pem'), '-days', '2', '-extfile', at('san.ext'));
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

  // An HTTP proxy that tunnels CONNECT and counts the tunnels.
  proxy = createHttpServer((_req, res) => res.writeHead(501).end());
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
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await Promise.all([tlsServer, silent, proxy].map((s) => new Promise((resolve) => s?.close(resolve))));
  await api?.close();
  dir.cleanup();
});

const plan = (env: Record<string, string>, ...flags: string[]) => runCli(['plan', MANIFEST, ...flags], { env });

describe('keys and URLs as pasted', () => {
  it('trims a key with a trailing newline and a URL with a trailing space', async () => {
    const result = await plan({ GATEHOUSE_API_URL: `${api.url} `, GATEHOUSE_API_KEY: `${KEY}\n` });
    expect(result.stderr).toBe('');
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
    expect(result.stderr).toMatch(/^Error: the API failed: GET http:\/\/127\.0\.0\.1:\d+\/\S+: 401 \S+: .*; the API key was refused; check GATEHOUSE_API_KEY \(or --api-key\); nothing was planned\n$/);
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

  it('--timeout alone: each attempt times out, and the retries are counted', async () => {
    const result = await plan({ GATEHOUSE_API_URL: silentUrl, GATEHOUSE_API_KEY: KEY }, '--timeout', '200ms');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/timeout: no complete answer within 200 ms \(after 5 attempts\); no answer within --timeout/);
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
    expect(untrusted.stderr).toMatch(/tls_error: TLS handshake failed \((SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT_LOCALLY): .*--ca-file/);
    for (const trusted of [byFlag, byVariable]) {
      expect(trusted.stderr).toBe('');
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
    expect(proxied.stderr).toBe('');
    expect(proxied.code).toBe(0);
    const through = tunnels - before;
    expect(through).toBeGreaterThan(0);

    const bypassed = await plan({ ...env, NO_PROXY: '127.0.0.1' });
    expect(bypassed.code).toBe(0);
    expect(tunnels - before).toBe(through);
  });

  it('uses HTTP_PROXY for an http:// API URL', async () => {
    const before = tunnels;
    const result = await plan({ GATEHOUSE_API_URL: api.url, GATEHOUSE_API_KEY: KEY, HTTP_PROXY: proxyUrl });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(tunnels).toBeGreaterThan(before);
  });
});
