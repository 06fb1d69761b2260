/**
 * Bodies that are not UTF-8 text are refused with the envelope and stored nowhere: bytes that
 * are not UTF-8 and lone surrogates are 400 `invalid_encoding` naming the field, a charset
 * other than UTF-8 is 415 `unsupported_charset` (http/json-body.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHeaders, startHarness, type Harness } from '../testing/harness.js';
import { charsetOf } from './json-body.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

async function post(url: string, payload: Buffer | string, contentType = 'application/json') {
  const res = await h.app.inject({ method: 'POST', url, headers: { ...authHeaders, 'content-type': contentType }, payload });
  return { status: res.statusCode, body: res.json() as Record<string, any> };
}

const bytes = (...parts: (string | number[])[]) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));
const storedCount = () => (h.app.db.prepare('SELECT count(*) AS n FROM objects').get() as { n: number }).n;

function expectRefused(res: { status: number; body: Record<string, any> }, status: number, code: string, field?: string) {
  expect(res.status).toBe(status);
  expect(res.body).toMatchObject({ error_code: code, status_code: status });
  expect(typeof res.body.details.operation_id).toBe('string');
  if (field === undefined) expect(res.body.details.field).toBeUndefined();
  else {
    expect(res.body.details.field).toBe(field);
    expect(res.body.msg).toContain(`'${field}'`);
  }
}

describe('bytes that are not UTF-8', () => {
  it.each([
    ['a byte that starts no character', bytes('{"description":"ab', [0xff], 'c"}')],
    ['a character cut short before the closing quote', bytes('{"description":"ab', [0xe2, 0x82], '"}')],
    ['an overlong encoding of "/"', bytes('{"description":"', [0xc0, 0xaf], '"}')],
    ['an encoded surrogate', bytes('{"description":"', [0xed, 0xa0, 0x80], '"}')],
  ])('are refused naming the field: %s', async (_name, payload) => {
    expectRefused(await post('/ip_policies', payload), 400, 'invalid_encoding', 'description');
  });

  it('are named by their path inside nested bodies', async () => {
    const edge = (await h.call('POST', '/edges/https', {})).body.id;
    const route = (await h.call('POST', `/edges/https/${edge}/routes`, { match_type: 'path_prefix', match: '/' })).body.id;
    const payload = bytes('{"add":{"x-ok":"1","x-bad":"', [0xfe], '"},"remove":[]}');
    const res = await h.app.inject({
      method: 'PUT',
      url: `/edges/https/${edge}/routes/${route}/request_headers`,
      headers: { ...authHeaders, 'content-type': 'application/json' },
      payload,
    });
    expectRefused({ status: res.statusCode, body: res.json() }, 400, 'invalid_encoding', 'add.x-bad');
    const list = bytes('{"hostports":["a.example:443","b', [0x80], '.example:443"]}');
    expectRefused(await post('/edges/https', list), 400, 'invalid_encoding', 'hostports[1]');
  });

  it('in a key name the key itself, and outside any string the body, with the byte offset', async () => {
    const key = await post('/ip_policies', bytes('{"descr', [0xc3], 'iption":"x"}'));
    expectRefused(key, 400, 'invalid_encoding', 'descr\ufffdiption');
    const outside = await post('/ip_policies', bytes('{"description":"x"}', [0xff]));
    expectRefused(outside, 400, 'invalid_encoding');
    expect(outside.body.msg).toBe('The body is not valid UTF-8 (byte 19); send it in UTF-8.');
  });
});

describe('lone surrogates', () => {
  it('are refused naming the field, in values and in keys', async () => {
    expectRefused(await post('/ip_policies', '{"description":"\\ud800x"}'), 400, 'invalid_encoding', 'description');
    expectRefused(await post('/ip_policies', '{"metadata":"ok","description":"x\\udfff"}'), 400, 'invalid_encoding', 'description');
    expectRefused(await post('/ip_policies', '{"description":"x","\\ud800":1}'), 400, 'invalid_encoding', '\ufffd');
  });

  it('are told apart from pairs, which are text', async () => {
    const res = await post('/ip_policies', '{"description":"\\ud83d\\ude00 and 😀"}');
    expect(res.status).toBe(201);
    expect(res.body.description).toBe('😀 and 😀');
  });
});

describe('charsets', () => {
  it.each(['utf-16', 'UTF-16LE', 'latin1', 'iso-8859-1', '"utf-32"'])('refuses charset=%s with 415 unsupported_charset', async (charset) => {
    expectRefused(await post('/ip_policies', '{"description":"x"}', `application/json; charset=${charset}`), 415, 'unsupported_charset');
  });

  it.each(['utf-8', 'UTF-8', '"utf-8"', 'utf8'])('accepts charset=%s', async (charset) => {
    expect((await post('/ip_policies', '{}', `application/json;charset=${charset}`)).status).toBe(201);
  });

  it('reads the parameter as the media type spells it', () => {
    expect(charsetOf('application/json')).toBeUndefined();
    expect(charsetOf('application/json; charset=UTF-16')).toBe('utf-16');
    expect(charsetOf('application/json ; foo=bar; charset="utf-8"')).toBe('utf-8');
  });
});

it('stores none of the refused bodies, and every list stays readable', async () => {
  const before = storedCount();
  await post('/ip_policies', bytes('{"description":"', [0xff], '"}'));
  await post('/ip_policies', '{"description":"\\udc00"}');
  await post('/ip_policies', '{"description":"x"}', 'application/json; charset=utf-16');
  expect(storedCount()).toBe(before);
  const list = await h.app.inject({ method: 'GET', url: '/ip_policies', headers: authHeaders });
  expect(list.statusCode).toBe(200);
  expect(list.body).not.toMatch(/\\ud[89a-f]|\ufffd/i);
});
