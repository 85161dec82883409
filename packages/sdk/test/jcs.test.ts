import { describe, expect, it } from 'vitest';
import { approvalDigest, canonicalJson, type RunSubject } from '../src/host.js';

/** A double from the 16 hex digits of its IEEE 754 bits, as RFC 8785 Appendix B lists them. */
function double(bits: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${bits}`));
  return view.getFloat64(0);
}

describe('canonicalJson is RFC 8785 (JSON Canonicalization Scheme)', () => {
  it('sorts keys by UTF-16 code units (RFC 8785 section 3.2.3)', () => {
    const input = JSON.parse(
      '{"\\u20ac":"Euro Sign","\\r":"Carriage Return","\\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One",' +
        '"\\ud83d\\ude00":"Emoji: Grinning Face","\\u0080":"Control","\\u00f6":"Latin Small Letter O With Diaeresis"}',
    );
    expect(canonicalJson(input)).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis",' +
        '"\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });

  it('writes the sample of RFC 8785 section 3.2.4 (numbers, string escapes, literals)', () => {
    const input = JSON.parse(String.raw`{
      "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
      "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
      "literals": [null, true, false]
    }`);
    const expected = String.raw`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`;
    expect(canonicalJson(input)).toBe(expected);
    // The UTF-8 bytes the RFC gives for the same output (section 3.2.4).
    expect(Buffer.from(canonicalJson(input), 'utf8').toString('hex')).toBe(
      '7b226c69746572616c73223a5b6e756c6c2c747275652c66616c73655d2c226e756d62657273223a5b3333333333333333332e333333333333332c31652b33302c342e352c302e3030322c31652d32375d2c22737472696e67223a22e282ac245c7530303066' +
        '5c6e4127425c225c5c5c5c5c222f227d',
    );
  });

  // RFC 8785 Appendix B: IEEE 754 bits and the text ECMAScript (hence JCS) writes for them.
  it.each([
    ['0000000000000000', '0'],
    ['8000000000000000', '0'],
    ['0000000000000001', '5e-324'],
    ['8000000000000001', '-5e-324'],
    ['7fefffffffffffff', '1.7976931348623157e+308'],
    ['ffefffffffffffff', '-1.7976931348623157e+308'],
    ['4340000000000000', '9007199254740992'],
    ['c340000000000000', '-9007199254740992'],
    ['4430000000000000', '295147905179352830000'],
    ['44b52d02c7e14af5', '9.999999999999997e+22'],
    ['44b52d02c7e14af6', '1e+23'],
    ['44b52d02c7e14af7', '1.0000000000000001e+23'],
    ['444b1ae4d6e2ef4e', '999999999999999700000'],
    ['444b1ae4d6e2ef4f', '999999999999999900000'],
    ['444b1ae4d6e2ef50', '1e+21'],
    ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
    ['3eb0c6f7a0b5ed8d', '0.000001'],
    ['41b3de4355555553', '333333333.3333332'],
    ['41b3de4355555554', '333333333.33333325'],
    ['41b3de4355555555', '333333333.3333333'],
    ['41b3de4355555556', '333333333.3333334'],
    ['41b3de4355555557', '333333333.33333343'],
    ['becbf647612f3696', '-0.0000033333333333333333'],
    ['43143ff3c1cb0959', '1424953923781206.2'],
  ])('writes the double %s as %s (Appendix B)', (bits, text) => {
    expect(canonicalJson(double(bits))).toBe(text);
    expect(canonicalJson([double(bits)])).toBe(`[${text}]`);
  });

  it.each([
    [1e21, '1e+21'],
    [1e-7, '1e-7'],
    [-0, '0'],
    [4.5, '4.5'],
    [0.002, '0.002'],
    [0.000001, '0.000001'],
    [1e30, '1e+30'],
  ])('writes %s as %s', (value, text) => {
    expect(canonicalJson(value)).toBe(text);
  });

  it.each([
    ['NaN (Appendix B 7fffffffffffffff)', double('7fffffffffffffff')],
    ['Infinity (Appendix B 7ff0000000000000)', double('7ff0000000000000')],
    ['a bigint', 1n],
    ['a lone surrogate', '\ud83d'],
  ])('refuses %s', (_, value) => {
    expect(() => canonicalJson({ value })).toThrow(/no JSON form/);
  });
});

describe('the worked example of docs/approval-digest.md', () => {
  const subject: RunSubject = {
    connector: { key: 'descript', version: '0.1.0' },
    action: 'media_imports.create',
    connectionId: 'conn_descript_prod',
    environment: 'production',
    input: {
      project_name: 'Launch video',
      add_media: { 'Misc/intro.mp4': { url: 'https://media.example.com/intro.mp4', language: 'en' } },
    },
  };
  const canonical =
    '{"action":"media_imports.create","connectionId":"conn_descript_prod","connector":"descript","connectorVersion":"0.1.0",' +
    '"environment":"production","input":{"add_media":{"Misc/intro.mp4":{"language":"en","url":"https://media.example.com/intro.mp4"}},"project_name":"Launch video"}}';

  it('has the canonical text and digest the document gives', () => {
    expect(
      canonicalJson({
        action: subject.action,
        connectionId: subject.connectionId,
        connector: 'descript',
        connectorVersion: '0.1.0',
        environment: 'production',
        input: subject.input,
      }),
    ).toBe(canonical);
    expect(approvalDigest(subject)).toEqual({
      digest: 'sha256:87d72136abfec94e6f2422d8fbb2959acd0a4e5f8aea633c685f32439dacba14',
      shortDigest: '87d72136abfe',
    });
  });
});
