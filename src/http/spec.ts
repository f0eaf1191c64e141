import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { OpenAPIV3_1 } from 'openapi-types';

export const OPENAPI_PATH = fileURLToPath(new URL('../../spec/openapi.yaml', import.meta.url));

export function loadOpenApiDocument(path = OPENAPI_PATH): OpenAPIV3_1.Document {
  return parse(readFileSync(path, 'utf8')) as OpenAPIV3_1.Document;
}
