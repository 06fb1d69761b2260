import { expect, test } from 'vitest';
import type { Change } from '../plan-model.js';
import { DependencyCycleError, order } from './order.js';

const change = (address: string, dependsOn: string[] = []): Change => ({
  address,
  action: 'create',
  kind: address.split('/')[0]!,
  name: address,
  id: null,
  before: null,
  after: null,
  fields: [],
  patch: [],
  dependsOn,
});

test('each change comes after what it depends on; independent ones keep their order', () => {
  const sorted = order([
    change('HTTPSEdgeRoute/a//', ['HTTPSEdge/a', 'Backend/b']),
    change('HTTPSEdge/a'),
    change('IPPolicy/x'),
    change('Backend/b', ['Backend/c']),
    change('Backend/c'),
  ]);
  expect(sorted.map((c) => c.address)).toEqual(['HTTPSEdge/a', 'IPPolicy/x', 'Backend/c', 'Backend/b', 'HTTPSEdgeRoute/a//']);
});

test('dependencies on objects without a change are ignored', () => {
  expect(order([change('IPRestriction/r', ['IPPolicy/unchanged'])]).map((c) => c.address)).toEqual(['IPRestriction/r']);
});

test('a cycle is a typed error that lists its edges', () => {
  const error = (() => {
    try {
      order([change('Backend/a', ['Backend/b']), change('Backend/b', ['Backend/c']), change('Backend/c', ['Backend/a']), change('IPPolicy/x')]);
    } catch (e) {
      return e;
    }
  })();
  expect(error).toBeInstanceOf(DependencyCycleError);
  expect((error as DependencyCycleError).edges).toEqual([
    { from: 'Backend/a', to: 'Backend/b' },
    { from: 'Backend/b', to: 'Backend/c' },
    { from: 'Backend/c', to: 'Backend/a' },
  ]);
});
