// Renders the market-maker WebSocket reference on /docs/ws from the served AsyncAPI document.
/* global AsyncApiStandalone */
(function () {
  var data = document.currentScript.dataset;
  AsyncApiStandalone.render(
    {
      schema: { url: data.specUrl, requestOptions: { credentials: 'same-origin' } },
      config: {
        show: { sidebar: true, info: true, servers: true, operations: true, messages: true, messageExamples: true, schemas: true, errors: true },
        expand: { messageExamples: true },
      },
    },
    document.getElementById('asyncapi'),
  );
})();
