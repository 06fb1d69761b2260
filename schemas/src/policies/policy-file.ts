/**
 * Policy files (`policies/*.yaml`, `--policy PATH`): the rules an organisation agreed on,
 * written in CEL and checked by `gatehouse validate` and `gatehouse plan` before anyone
 * approves. A file is a list of rules. Each rule applies to one kind of object (`kind`, an
 * API kind such as `HTTPSEdgeRoute` or `IPPolicyRule`), optionally only `when` a condition
 * holds, and `require`s a condition; an object for which `require` is false (or cannot be
 * evaluated) is a result of the rule's `severity`. `message` may hold `{expression}`
 * placeholders, each a CEL expression over the same variables.
 */
import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from '../common.js';

const Expression = (description: string) => Type.String({ minLength: 1, maxLength: 4096, description });

export const PolicyRule = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 100,
      pattern: '^[a-z0-9][a-z0-9._-]*$',
      description: 'unique across all policy files: lowercase letters, digits, dot, dash, underscore',
    }),
    description: Type.Optional(Type.String({ maxLength: 1000, description: 'what the rule asks for and why, for people' })),
    kind: Type.String({
      minLength: 1,
      description:
        'the kind of object the rule checks: IPPolicy, IPPolicyRule, IPRestriction, BotUser, Backend, CertificateAuthority, HTTPSEdge, HTTPSEdgeRoute, TCPEdge, EventDestination, EventSubscription',
    }),
    when: Type.Optional(Expression('CEL condition: the rule applies only to objects for which it is true (all objects when absent)')),
    require: Expression('CEL condition every object the rule applies to must meet'),
    severity: Type.Optional(
      StringEnum(['error', 'warning'] as const, { description: 'error fails validate and plan (exit 1); warning is shown only. Default error' }),
    ),
    message: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1000,
        description: "what is wrong, with {expression} placeholders (CEL); default: the rule's description or name",
      }),
    ),
  },
  { additionalProperties: false, description: 'one policy rule' },
);
export type PolicyRule = Static<typeof PolicyRule>;

export const PolicyFile = Type.Array(PolicyRule, { description: 'a gatehouse policy file: a list of rules' });
export type PolicyFile = Static<typeof PolicyFile>;
