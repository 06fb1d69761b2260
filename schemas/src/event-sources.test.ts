/** The shared source checks: what the server refuses, the engine refuses at validate time. */
import { describe, expect, test } from 'vitest';
import { EVENT_TYPES } from './events.js';
import { checkEventSources, eventSourceProblems } from './event-sources.js';
import { caPemProblem, splitPemCertificates } from './ca-pem.js';

describe('event sources', () => {
  test('every event type of api-spec part 6 is accepted on its own', () => {
    expect(EVENT_TYPES).toContain('ip_policy_rule_deleted.v0');
    expect(EVENT_TYPES).toContain('agent_session_stop.v0');
    for (const type of EVENT_TYPES) expect(eventSourceProblems([{ type }]), type).toEqual([]);
  });

  test('an unknown type names the field and suggests the version suffix', () => {
    expect(eventSourceProblems([{ type: 'ip_policy_created.v0' }, { type: 'ip_policy_updated' }])).toEqual([
      {
        field: 'sources[1].type',
        path: ['sources', 1, 'type'],
        message: "'ip_policy_updated' is not a known event type (did you mean 'ip_policy_updated.v0'?)",
      },
    ]);
  });

  test('fields must be fields of the traffic event type; every unknown one is reported', () => {
    const problems = eventSourceProblems([{ type: 'tcp_connection_closed.v0', fields: ['conn.bytes_in', 'http.request.method', 'conn.nope'] }]);
    expect(problems.map((p) => [p.field, p.message])).toEqual([
      ['sources[0].fields[1]', "'http.request.method' is not a field of tcp_connection_closed.v0"],
      ['sources[0].fields[2]', "'conn.nope' is not a field of tcp_connection_closed.v0"],
    ]);
  });

  test('fields and filters are for traffic events only', () => {
    expect(eventSourceProblems([{ type: 'ip_policy_created.v0', fields: ['conn.client_ip'], filter: 'true' }]).map((p) => p.field)).toEqual([
      'sources[0].fields',
      'sources[0].filter',
    ]);
  });

  test('a filter over a non-filterable field names it and its column', () => {
    const [problem] = eventSourceProblems([{ type: 'http_request_complete.v0', filter: 'conn.server_port == 443 && http.request.user_agent == "x"' }]);
    expect(problem).toMatchObject({ field: 'sources[0].filter', path: ['sources', 0, 'filter'], column: 28 });
    expect(problem!.message).toContain("field 'http.request.user_agent' (column 28) is not filterable");
    expect(problem!.message).toContain('filterable fields: ev.conn.client_ip, ev.conn.server_ip');
  });

  test('filters as the service documents them: the event bound as `ev`', () => {
    const ok = (filter: string) => eventSourceProblems([{ type: 'http_request_complete.v0', filter }]);
    expect(ok("ev.conn.server_name.matches('^api[.]')")).toEqual([]);
    expect(ok("ev.http.request.method == 'POST'")).toEqual([]);
    expect(ok('ev.conn.server_port == 443 && has(ev.conn.client_ip)')).toEqual([]);
    // names without the binding, as gatehouse wrote them before, still read as fields
    expect(ok('conn.server_port == 443')).toEqual([]);
    const [unbound] = ok('ev.tls.version == "1.3"');
    expect(unbound!.message).toContain("field 'tls.version' (column 1) is not filterable");
    const [whole] = ok('ev == null');
    expect(whole!.message).toContain("'ev' (column 1) is the whole event");
    expect(eventSourceProblems([{ type: 'tcp_connection_closed.v0', filter: "ev.conn.server_name.endsWith('.example.com')" }])).toEqual([]);
  });

  test('a filter that is not CEL carries its column', () => {
    const [problem] = eventSourceProblems([{ type: 'http_request_complete.v0', filter: 'conn.client_ip == ' }]);
    expect(problem?.message).toMatch(/^not valid CEL at column \d+/);
    expect(problem?.column).toBeGreaterThan(1);
  });

  test('filters over filterable fields, with macros and methods, pass', () => {
    const filter = "conn.server_name.endsWith('.example.com') && has(conn.server_port) && [1, 2].exists(x, x > 0)";
    expect(eventSourceProblems([{ type: 'tcp_connection_closed.v0', filter }])).toEqual([]);
  });

  test('a type twice is reported once, at its second source; the server gets the first problem', () => {
    const sources = [{ type: 'ip_policy_created.v0' }, { type: 'nope.v0' }, { type: 'ip_policy_created.v0' }];
    expect(eventSourceProblems(sources).map((p) => p.field)).toEqual(['sources[1].type', 'sources[2].type']);
    expect(checkEventSources(sources)?.field).toBe('sources[1].type');
    expect(checkEventSources([{ type: 'ip_policy_created.v0' }])).toBeUndefined();
  });
});

describe('CA PEM structure', () => {
  const block = (label: string, body: string) => `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----\n`;
  test('text that is not PEM, other blocks and bad base64 are refused without echoing them', () => {
    expect(splitPemCertificates('hello')).toMatchObject({ ok: false, reason: expect.stringContaining('no PEM block') });
    const key = block('PRIVATE KEY', 'c2VjcmV0LWtleS1ieXRlcw==');
    const refused = caPemProblem(key);
    expect(refused).toBe('block 1 is a PRIVATE KEY, not a CERTIFICATE; send only certificates');
    expect(refused).not.toContain('c2VjcmV0');
    expect(caPemProblem(block('CERTIFICATE', 'not base64!'))).toBe('block 1 is not base64');
    expect(caPemProblem(`junk\n${block('CERTIFICATE', 'AAAA')}`)).toContain('text outside the PEM blocks');
  });
  test('base64 that is not a certificate is refused by X509Certificate', () => {
    expect(caPemProblem(block('CERTIFICATE', 'AAAA'))).toMatch(/^block 1 is not a valid X\.509 certificate \(/);
  });
});
