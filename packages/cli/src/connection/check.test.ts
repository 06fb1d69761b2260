import { describe, expect, it } from 'vitest';
import { apiFailureHint } from './api-failure.js';
import { checkApiKey, checkApiUrl, sourceOf } from './check.js';
import { parseDuration } from './transport.js';

describe('checkApiUrl', () => {
  it('trims and normalises', () => {
    expect(checkApiUrl(' https://api.example.com/ \n', '--api-url')).toBe('https://api.example.com');
    expect(checkApiUrl('http://127.0.0.1:8484/v2', 'GATEHOUSE_API_URL')).toBe('http://127.0.0.1:8484/v2');
  });

  it('refuses what is not an http(s) base URL, naming the source', () => {
    expect(() => checkApiUrl('api.example.com', 'GATEHOUSE_API_URL')).toThrow(/^GATEHOUSE_API_URL is not a URL: 'api\.example\.com'/);
    expect(() => checkApiUrl('ftp://x', '--api-url')).toThrow(/^--api-url must be an http:\/\/ or https:\/\/ URL/);
    expect(() => checkApiUrl('https://user:pw@api.example.com', '--api-url')).toThrow(/user name or password/);
    expect(() => checkApiUrl('https://user:pw@api.example.com', '--api-url')).not.toThrow(/pw/);
    expect(() => checkApiUrl('https://api.example.com/?x=1', '--api-url')).toThrow(/query or fragment/);
  });
});

describe('checkApiKey', () => {
  it('trims a pasted key, refuses white space inside without quoting it', () => {
    expect(checkApiKey('key\n', 'GATEHOUSE_API_KEY')).toBe('key');
    expect(() => checkApiKey('se cret', 'GATEHOUSE_API_KEY')).toThrow(/^GATEHOUSE_API_KEY has white space/);
    expect(() => checkApiKey('se\u0007cret', '--api-key')).not.toThrow(/cret/);
    expect(() => checkApiKey(' \n', '--api-key')).toThrow(/^--api-key is empty/);
  });
});

describe('sourceOf', () => {
  it('names the flag when it is on the command line, else the variable that is set', () => {
    expect(sourceOf('api-url', 'GATEHOUSE_API_URL', ['plan', '--api-url', 'x'], { GATEHOUSE_API_URL: 'y' })).toBe('--api-url');
    expect(sourceOf('api-url', 'GATEHOUSE_API_URL', ['plan', '--api-url=x'], {})).toBe('--api-url');
    expect(sourceOf('api-url', 'GATEHOUSE_API_URL', ['plan'], { GATEHOUSE_API_URL: 'y' })).toBe('GATEHOUSE_API_URL');
  });
});

describe('parseDuration', () => {
  it('reads ms, s, m, h and bare seconds; refuses zero and words', () => {
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('30s')).toBe(30_000);
    expect(parseDuration('2m')).toBe(120_000);
    expect(parseDuration('1h')).toBe(3_600_000);
    expect(parseDuration('1.5')).toBe(1500);
    expect(parseDuration('0s')).toBeUndefined();
    expect(parseDuration('soon')).toBeUndefined();
    expect(parseDuration('-1s')).toBeUndefined();
  });
});

describe('apiFailureHint', () => {
  it('says what to fix for failures that would repeat, and "try again later" only for transient ones', () => {
    expect(apiFailureHint({ status: 401, code: 'invalid_authorization', retryable: false })).toBe(
      'the API key was refused; check GATEHOUSE_API_KEY (or --api-key)',
    );
    // The API said so already ("The API key is not valid"): not said twice.
    expect(
      apiFailureHint({ status: 401, code: 'invalid_authorization', retryable: false, message: 'GET /x: 401 invalid_authorization: The API key is not valid.' }),
    ).toBe('check GATEHOUSE_API_KEY (or --api-key)');
    expect(apiFailureHint({ status: undefined, code: 'tls_error', retryable: false })).toMatch(/--ca-file/);
    expect(apiFailureHint({ status: 503, code: 'unavailable', retryable: true })).toBe('try again later');
    expect(apiFailureHint({ status: 400, code: 'bad_request', retryable: false })).toBeUndefined();
  });
});
