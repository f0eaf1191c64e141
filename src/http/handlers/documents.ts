// The published documents (tag `documents`): spec/openapi.yaml and spec/asyncapi.yaml as JSON or YAML,
// naming this instance in their servers (PUBLIC_URL, else the request's Host), cacheable with an ETag.
import type { GetAsyncApiJsonResponses, GetOpenApiJsonResponses } from '../../../generated/openapi/types.gen.js';
import { matchesEtag, type DocumentFormat, type DocumentName, type DocumentStore, type PublishedDocument } from '../docs/documents.js';
import type { HandlerRequest, HandlersFor, OperationId } from '../handler.js';

/** Documents may change with a deployment: caches keep them a minute, then revalidate with the ETag. */
export const DOCUMENT_CACHE_CONTROL = 'public, max-age=60';

type DocumentOperation = 'getOpenApiJson' | 'getOpenApiYaml' | 'getAsyncApiJson' | 'getAsyncApiYaml';

export function documentsHandlers(store: DocumentStore, opts: { publicUrl: string | undefined }): HandlersFor<DocumentOperation> {
  /** The document for this request, or the 304 when the client's copy is current. */
  const lookup = <Id extends OperationId>(name: DocumentName, format: DocumentFormat, req: HandlerRequest<Id>) => {
    const host = req.headers.host;
    const doc = store.get(name, format, Array.isArray(host) ? host[0] : host);
    const headers: Record<string, string> = { ETag: doc.etag, 'Cache-Control': DOCUMENT_CACHE_CONTROL };
    if (!opts.publicUrl) headers.Vary = 'Host'; // the servers entry follows the Host header
    const notModified = matchesEtag(joined(req.headers['if-none-match']), doc.etag);
    return { doc, headers, notModified };
  };
  const yaml = (doc: PublishedDocument) => ({ data: doc.body, contentType: 'application/yaml; charset=utf-8' as const });
  return {
    getOpenApiJson: (req) => {
      const { doc, headers, notModified } = lookup('openapi', 'json', req);
      if (notModified) return { status: 304, headers };
      return { status: 200, body: doc.json as GetOpenApiJsonResponses[200], headers };
    },
    getOpenApiYaml: (req) => {
      const { doc, headers, notModified } = lookup('openapi', 'yaml', req);
      if (notModified) return { status: 304, headers };
      return { status: 200, raw: yaml(doc), headers };
    },
    getAsyncApiJson: (req) => {
      const { doc, headers, notModified } = lookup('asyncapi', 'json', req);
      if (notModified) return { status: 304, headers };
      return { status: 200, body: doc.json as GetAsyncApiJsonResponses[200], headers };
    },
    getAsyncApiYaml: (req) => {
      const { doc, headers, notModified } = lookup('asyncapi', 'yaml', req);
      if (notModified) return { status: 304, headers };
      return { status: 200, raw: yaml(doc), headers };
    },
  };
}

const joined = (v: string | string[] | undefined) => (Array.isArray(v) ? v.join(',') : v);
