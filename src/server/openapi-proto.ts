/**
 * `/openapi/v2` as protobuf: the OpenAPI v2 document as gnostic's `openapi.v2.Document` message
 * (data/k8s/openapi/openapiv2.proto, through protobufjs), which kube-apiserver serves (kube-openapi's
 * handler, via gnostic's compiler) when the Accept header asks for
 * `application/com.github.proto-openapi.spec.v2@v1.0+protobuf` — client-go's
 * `DiscoveryClient.OpenAPISchema()` asks for nothing else, so `kubectl explain
 * --output=plaintext-openapiv2` and kubectl's fallbacks from /openapi/v3 read it.
 *
 * The JSON document is mapped field by field as gnostic's generated `NewDocument` reads it (read, not
 * copied): camelCase keys to the messages' snake_case fields (`$ref` → `_ref`), maps to ordered
 * lists of `Named*` {name, value} pairs, `x-*` keys to `vendor_extension`, the oneof wrappers
 * chosen by the value (a boolean or a schema for additionalProperties, a `$ref` or a parameter,
 * a body or a header/formData/query/path parameter by `in`, …), and every free value (`default`,
 * `enum`, `example`, vendor extensions) as an `Any` holding its YAML text. Simplification: that
 * text is the value's JSON (JSON is YAML, and readers — kube-openapi's proto models — parse it as
 * YAML), where gnostic writes block-style YAML, so the bytes differ from upstream's though every
 * reader decodes the same values.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import protobuf from 'protobufjs';
import { k8sDataDir } from './k8s-data.js';

export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

type Json = Record<string, unknown>;

let root: protobuf.Root | undefined;

function load(): protobuf.Root {
  if (root) return root;
  const r = new protobuf.Root();
  // google.protobuf.Any, which the Any message wraps (never set here: values go as YAML)
  r.addJSON(protobuf.common.get('google/protobuf/any.proto')!.nested!);
  protobuf.parse(readFileSync(join(k8sDataDir(), 'openapi', 'openapiv2.proto'), 'utf8'), r, {
    keepCase: true,
  });
  r.resolveAll();
  return (root = r);
}

const type = (name: string) => load().lookupType(`openapi.v2.${name}`);
const snake = (key: string) =>
  key === '$ref' ? '_ref' : key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const anyOf = (v: unknown) => ({ yaml: `${JSON.stringify(v)}\n` });

/** the non-body parameter messages, by `in` */
const NON_BODY: Record<string, [string, string]> = {
  header: ['header_parameter_sub_schema', 'HeaderParameterSubSchema'],
  formData: ['form_data_parameter_sub_schema', 'FormDataParameterSubSchema'],
  query: ['query_parameter_sub_schema', 'QueryParameterSubSchema'],
  path: ['path_parameter_sub_schema', 'PathParameterSubSchema'],
};
/** the security scheme messages, by type (and flow for oauth2) */
const SECURITY: Record<string, [string, string]> = {
  basic: ['basic_authentication_security', 'BasicAuthenticationSecurity'],
  apiKey: ['api_key_security', 'ApiKeySecurity'],
  implicit: ['oauth2_implicit_security', 'Oauth2ImplicitSecurity'],
  password: ['oauth2_password_security', 'Oauth2PasswordSecurity'],
  application: ['oauth2_application_security', 'Oauth2ApplicationSecurity'],
  accessCode: ['oauth2_access_code_security', 'Oauth2AccessCodeSecurity'],
};

/** a field's value: a message converted, a scalar as is */
function fieldValue(f: protobuf.Field, v: unknown): unknown {
  return f.resolvedType instanceof protobuf.Type ? message(f.resolvedType, v) : v;
}

/** `{k: v}` as the ordered `Named*` list of field `f` */
function named(f: protobuf.Field, v: unknown): Json[] {
  const value = (f.resolvedType as protobuf.Type).fields.value!;
  return Object.entries((v ?? {}) as Json).map(([name, x]) => ({ name, value: fieldValue(value, x) }));
}

/** the plain object of message `t` (proto field names) for the JSON value `v` */
function message(t: protobuf.Type, v: unknown): Json {
  const o = (v ?? {}) as Json;
  switch (t.name) {
    case 'Any':
      return anyOf(v);
    case 'TypeItem':
      return { value: Array.isArray(v) ? v : [v] };
    case 'StringArray':
      return { value: v };
    case 'ItemsItem':
      return { schema: (Array.isArray(v) ? v : [v]).map((s) => message(type('Schema'), s)) };
    case 'AdditionalPropertiesItem':
      return typeof v === 'boolean' ? { boolean: v } : { schema: message(type('Schema'), v) };
    case 'SchemaItem':
      return o.type === 'file'
        ? { file_schema: message(type('FileSchema'), v) }
        : { schema: message(type('Schema'), v) };
    case 'ParametersItem':
      return '$ref' in o
        ? { json_reference: message(type('JsonReference'), v) }
        : { parameter: message(type('Parameter'), v) };
    case 'ResponseValue':
      return '$ref' in o
        ? { json_reference: message(type('JsonReference'), v) }
        : { response: message(type('Response'), v) };
    case 'Parameter': {
      if (o.in === 'body') return { body_parameter: message(type('BodyParameter'), v) };
      const [field, name] = NON_BODY[String(o.in)] ?? NON_BODY.query!;
      return { non_body_parameter: { [field]: message(type(name), v) } };
    }
    case 'SecurityDefinitionsItem': {
      const [field, name] = SECURITY[String(o.type === 'oauth2' ? o.flow : o.type)] ?? SECURITY.apiKey!;
      return { [field]: message(type(name), v) };
    }
  }
  const fields = t.fields;
  // a map: one repeated field of Named* pairs
  if (t.fieldsArray.length === 1 && fields.additional_properties?.repeated)
    return { additional_properties: named(fields.additional_properties, v) };
  const out: Json = {};
  const push = (f: protobuf.Field, item: Json) => ((out[f.name] ??= []) as Json[]).push(item);
  for (const [key, x] of Object.entries(o)) {
    if (key.startsWith('x-') && fields.vendor_extension) {
      push(fields.vendor_extension, { name: key, value: anyOf(x) });
      continue;
    }
    const f = fields[snake(key)];
    if (f) out[f.name] = f.repeated ? (x as unknown[]).map((e) => fieldValue(f, e)) : fieldValue(f, x);
    // Paths: every other key is a path; Responses: a status code or "default"
    else if (t.name === 'Paths') push(fields.path!, { name: key, value: message(type('PathItem'), x) });
    else if (t.name === 'Responses')
      push(fields.response_code!, { name: key, value: message(type('ResponseValue'), x) });
  }
  return out;
}

/** The OpenAPI v2 document (JSON) encoded as `openapi.v2.Document`. */
export function encodeOpenApiV2(doc: object): Uint8Array {
  const t = type('Document');
  return t.encode(t.fromObject(message(t, doc))).finish();
}
