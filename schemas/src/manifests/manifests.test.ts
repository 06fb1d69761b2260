import { Ajv, type KeywordDefinition } from 'ajv';
import { expect, test } from 'vitest';
import { customKeywords } from '../keywords.js';
import { AnyManifest, MANIFEST_SCHEMAS } from './kinds.js';

const ajv = new Ajv({ allErrors: true, strict: false, discriminator: true });
for (const k of customKeywords) ajv.addKeyword(k as unknown as KeywordDefinition);

test('the any-manifest schema accepts every kind and picks the branch by kind', () => {
  const check = ajv.compile(AnyManifest);
  expect(check({ kind: 'IPPolicy', name: 'office', spec: { rules: [{ cidr: '10.0.0.0/8', action: 'allow' }] } })).toBe(true);
  expect(check({ kind: 'Backend', name: 'w', spec: { type: 'weighted', backends: { web: 1 } } })).toBe(true);
  expect(check({ kind: 'Backend', name: 'w', spec: { type: 'weighted', labels: { a: 'b' } } })).toBe(false);
  expect(check({ kind: 'Nope', name: 'x', spec: {} })).toBe(false);
});

test('every kind schema rejects unknown fields and takes references by name or {id}', () => {
  expect(Object.keys(MANIFEST_SCHEMAS)).toEqual([
    'IPPolicy',
    'IPRestriction',
    'BotUser',
    'Backend',
    'HTTPSEdge',
    'TCPEdge',
    'TLSEdge',
    'ReservedDomain',
    'ReservedTCPAddress',
    'CertificateAuthority',
    'EventDestination',
    'EventSubscription',
  ]);
  const restriction = ajv.compile(MANIFEST_SCHEMAS.IPRestriction);
  expect(restriction({ kind: 'IPRestriction', name: 'r', spec: { type: 'api', ip_policies: ['a', { id: 'ipp_1' }] } })).toBe(true);
  expect(restriction({ kind: 'IPRestriction', name: 'r', spec: { type: 'api', ip_policies: ['a'], extra: 1 } })).toBe(false);
  expect(restriction({ kind: 'IPRestriction', name: 'r', spec: { type: 'api', ip_policies: [] } })).toBe(false);
});
