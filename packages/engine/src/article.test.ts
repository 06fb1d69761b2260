import { expect, test } from 'vitest';
import { KINDS } from './kinds/index.js';
import { withArticle } from './article.js';

test.each([
  ['IPPolicy', 'an IPPolicy'],
  ['IPRestriction', 'an IPRestriction'],
  ['HTTPSEdge', 'an HTTPSEdge'],
  ['TCPEdge', 'a TCPEdge'],
  ['TLSEdge', 'a TLSEdge'],
  ['IP policy', 'an IP policy'],
  ['HTTPS edge route', 'an HTTPS edge route'],
  ['event destination', 'an event destination'],
  ['EventSubscription', 'an EventSubscription'],
  ['backend', 'a backend'],
  ['BotUser', 'a BotUser'],
  ['reserved TCP address', 'a reserved TCP address'],
  ['integer', 'an integer'],
  ['object', 'an object'],
  ['array', 'an array'],
  ['string', 'a string'],
  ['user', 'a user'],
  ['unmanaged object', 'an unmanaged object'],
])('%s -> %s', (word, expected) => {
  expect(withArticle(word)).toBe(expected);
});

test('every kind and title reads right', () => {
  const said = KINDS.flatMap((k) => [withArticle(k.kind), withArticle(k.title)]);
  expect(said).not.toContain('a IPPolicy');
  expect(said.filter((s) => /^a [AEIOU]/.test(s) && !/^a [A-Z]{2}/.test(s))).toEqual([]);
});
