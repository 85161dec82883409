import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { schemeType } from '../src/auth/schemes/index.js';
import { checkCredential, describeScheme, isOAuth2Scheme, signsIn } from '../src/host.js';
import {
  type AuthScheme,
  apiKeyHeader,
  apiKeyQuery,
  basicAuth,
  bearerToken,
  ConnectorError,
  customAuth,
  defineAction,
  defineConnector,
  DefinitionError,
  oauth2AuthorizationCode,
  oauth2ClientCredentials,
} from '../src/index.js';

const EVERY_TYPE: readonly AuthScheme[] = [
  bearerToken(),
  apiKeyHeader('X-Api-Key'),
  apiKeyQuery('api_key'),
  basicAuth(),
  oauth2ClientCredentials({ tokenUrl: 'https://auth.example.com/token' }),
  oauth2AuthorizationCode({
    authorizeUrl: 'https://auth.example.com/authorize',
    tokenUrl: 'https://auth.example.com/token',
  }),
  customAuth({ id: 'hmac', sign: () => ({}) }),
];

/** A scheme of a type the SDK does not list, as a connector outside it might write one. */
const digest = { type: 'digest', id: 'digest' } as unknown as AuthScheme;

const list = defineAction({
  key: 'items.list',
  label: 'List items',
  direction: 'source',
  entity: z.object({ id: z.string() }).meta({ id: 'SchemeTypesItem' }),
  input: z.object({}),
  async *read() {},
});

function connectorWith(auth: AuthScheme) {
  return defineConnector({
    key: 'schemes',
    name: 'Schemes',
    version: '1.0.0',
    vendor: 'Example',
    category: 'media',
    status: 'beta',
    summary: 'One scheme.',
    auth,
    actions: [list],
  });
}

describe('a scheme type is one object, found by the type its schemes carry', () => {
  it.each(EVERY_TYPE.map((scheme) => [scheme.type, scheme] as const))(
    '%s: its checks, credential, application, catalogue entry and hints in one object',
    (type, scheme) => {
      const found = schemeType(scheme);
      expect(found.type).toBe(type);
      for (const member of ['problems', 'credential', 'supplies', 'apply', 'catalogue', 'describe', 'renewHint'])
        expect(typeof found[member as keyof typeof found], member).toBe('function');
      expect(found.problems(scheme)).toEqual([]);
      expect(connectorWith(scheme).auth).toEqual([scheme]);
    },
  );

  it('asks the scheme whether a person signs in to it and whether its tokens are renewed', () => {
    expect(EVERY_TYPE.filter(signsIn).map((scheme) => scheme.type)).toEqual(['oauth2_authorization_code']);
    expect(EVERY_TYPE.filter(isOAuth2Scheme).map((scheme) => scheme.type)).toEqual([
      'oauth2_client_credentials',
      'oauth2_authorization_code',
    ]);
  });

  it('gives the catalogue site the words of a published scheme, its values as code', () => {
    expect(
      describeScheme({ id: 'x-api-key', type: 'api_key_header', header: 'X-Api-Key', default: true, supplies: {} }),
    ).toEqual(['API key in ', { code: 'X-Api-Key' }]);
  });
});

describe('a scheme of a type outside the SDK list', () => {
  it('is refused by defineConnector, naming the scheme and its type', () => {
    expect(() => connectorWith(digest)).toThrow(DefinitionError);
    expect(() => connectorWith(digest)).toThrow(
      `connector 'schemes': auth scheme 'digest': unknown scheme type "digest"`,
    );
  });

  it('is refused as a connection problem before its credential is read, and has neither sign-in nor tokens', () => {
    let refused: unknown;
    try {
      checkCredential('schemes', digest, 'key-5b1e9a7c3d2f4e60');
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(ConnectorError);
    expect((refused as ConnectorError).code).toBe('invalid_connection');
    expect((refused as ConnectorError).message).toContain(`auth scheme 'digest' is of the type "digest"`);
    expect((refused as ConnectorError).message).not.toContain('key-5b1e9a7c3d2f4e60');
    expect(signsIn(digest)).toBe(false);
    expect(isOAuth2Scheme(digest)).toBe(false);
  });
});
