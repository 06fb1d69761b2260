import { describe, expect, it } from 'vitest';
import { chooseTarget } from './target.js';

const API = 'https://api.example.com';

describe('chooseTarget', () => {
  it('refuses a set but empty GATEHOUSE_API_URL or GATEHOUSE_API_KEY, naming the variable', () => {
    expect(() => chooseTarget({}, { GATEHOUSE_API_URL: '' })).toThrow(/^GATEHOUSE_API_URL is set but empty/);
    expect(() => chooseTarget({}, { GATEHOUSE_API_URL: '  ' })).toThrow(/GATEHOUSE_API_URL is set but empty/);
    expect(() => chooseTarget({ apiUrl: API }, { GATEHOUSE_API_URL: API, GATEHOUSE_API_KEY: '' })).toThrow(/^GATEHOUSE_API_KEY is set but empty/);
    // Even with --embedded: an empty secret is a broken pipeline, not a request for the embedded server.
    expect(() => chooseTarget({ embedded: true }, { GATEHOUSE_API_KEY: '' })).toThrow(/GATEHOUSE_API_KEY/);
    expect(() => chooseTarget({ apiUrl: '' }, {})).toThrow(/--api-url is empty/);
    try {
      chooseTarget({}, { GATEHOUSE_API_URL: '' });
    } catch (error) {
      expect(error).toMatchObject({ code: 'empty_variable' });
    }
  });

  it('lets a flag given on the command line win over an empty variable', () => {
    expect(chooseTarget({ apiUrl: API, apiKey: 'k' }, { GATEHOUSE_API_URL: '', GATEHOUSE_API_KEY: '' })).toEqual({ mode: 'api', url: API, key: 'k' });
  });

  it('refuses the embedded default when CI is set, unless --embedded or GATEHOUSE_API_URL=embedded', () => {
    expect(() => chooseTarget({}, { CI: 'true' })).toThrow(expect.objectContaining({ code: 'target_required' }));
    expect(() => chooseTarget({}, { CI: '1' })).toThrow(/--embedded/);
    expect(chooseTarget({ embedded: true }, { CI: 'true' })).toEqual({ mode: 'embedded', reason: 'explicit' });
    expect(chooseTarget({ apiUrl: 'embedded' }, { CI: 'true', GATEHOUSE_API_URL: 'embedded' })).toEqual({ mode: 'embedded', reason: 'explicit' });
    expect(chooseTarget({ apiUrl: 'Embedded' }, { CI: 'true' })).toEqual({ mode: 'embedded', reason: 'explicit' });
    // CI="" is not set (as no CI system leaves it).
    expect(chooseTarget({}, { CI: '' })).toEqual({ mode: 'embedded', reason: 'default' });
    expect(chooseTarget({}, {})).toEqual({ mode: 'embedded', reason: 'default' });
  });

  it('uses an API URL, with or without CI, and refuses it together with --embedded', () => {
    expect(chooseTarget({ apiUrl: API, apiKey: 'k' }, { CI: 'true' })).toEqual({ mode: 'api', url: API, key: 'k' });
    expect(() => chooseTarget({ apiUrl: API, embedded: true }, {})).toThrow(expect.objectContaining({ code: 'conflicting_target' }));
  });
});
