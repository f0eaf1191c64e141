// Starts Scalar's API reference on /docs from the served OpenAPI document. Everything is local: no
// default fonts (they come from a CDN), no telemetry, no agent or MCP integrations, no request proxy.
/* global Scalar */
(function () {
  var data = document.currentScript.dataset;
  Scalar.createApiReference('#app', {
    url: data.specUrl,
    withDefaultFonts: false,
    telemetry: false,
    agent: { disabled: true },
    mcp: { disabled: true },
    persistAuth: false,
    // The portal's own navigation (src/http/docs/router.ts) links both references; Scalar's toolbar and
    // developer tools (shown on localhost by default) are not for partners.
    showToolbar: 'never',
    showDeveloperTools: 'never',
    showOperationId: true,
    defaultOpenAllTags: true,
    hideDarkModeToggle: false,
    authentication: { preferredSecurityScheme: 'bearer' },
    metaData: { title: data.title },
  });
})();
