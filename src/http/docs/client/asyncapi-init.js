// Renders the market-maker WebSocket reference on /docs/ws from the served AsyncAPI document.
// The renderer heads every operation with its channel's address (all of ours share /v1/ws) and prints
// summaries as plain text: once it has rendered, each operation is headed by its message's name (e.g.
// `quote_ack`) and `code` in plain text becomes <code>, so no literal backtick is left on the page.
/* global AsyncApiStandalone */
(function () {
  var data = document.currentScript.dataset;
  var root = document.getElementById('asyncapi');
  AsyncApiStandalone.render(
    {
      schema: { url: data.specUrl, requestOptions: { credentials: 'same-origin' } },
      config: {
        show: {
          sidebar: true,
          info: true,
          servers: true,
          operations: true,
          messages: true,
          messageExamples: true,
          schemas: true,
          errors: true,
        },
        expand: { messageExamples: true },
      },
    },
    root,
  );

  /** operationId -> the wire name of its first message, from the same document. */
  var names = null;
  fetch(data.specUrl, { credentials: 'same-origin' })
    .then(function (r) {
      return r.json();
    })
    .then(function (doc) {
      names = {};
      Object.keys(doc.operations || {}).forEach(function (id) {
        var ref = ((doc.operations[id].messages || [])[0] || {}).$ref || '';
        var key = ref.split('/').pop();
        var msg = (doc.channels.marketMaker.messages || {})[key] || {};
        var component = msg.$ref ? doc.components.messages[msg.$ref.split('/').pop()] : msg;
        if (component && component.name) names[id] = component.name;
      });
      tidy();
    })
    .catch(function () {
      /* the page still renders, with the renderer's own headings */
    });

  function tidy() {
    if (names) {
      root.querySelectorAll('li[id^="operation-"]').forEach(function (li) {
        var id = li.id.replace(/^operation-(send|receive|request|reply)-/, '');
        var name = names[id];
        var label = li.querySelector('h3 span.font-mono.text-base');
        if (name && label && label.textContent !== name) {
          label.textContent = name;
          label.setAttribute('data-message', name);
        }
      });
    }
    var walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
      acceptNode: function (n) {
        if (n.nodeValue.indexOf('`') < 0) return NodeFilter.FILTER_REJECT;
        return n.parentElement && n.parentElement.closest('code, pre, textarea') ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT;
      },
    });
    var found = [];
    while (walker.nextNode()) found.push(walker.currentNode);
    found.forEach(function (node) {
      var parts = node.nodeValue.split('`');
      if (parts.length < 3) return;
      var frag = document.createDocumentFragment();
      parts.forEach(function (part, i) {
        if (i % 2 === 1 && i < parts.length - 1) {
          var code = document.createElement('code');
          code.textContent = part;
          frag.appendChild(code);
        } else {
          frag.appendChild(document.createTextNode(i % 2 === 1 ? '`' + part : part));
        }
      });
      node.parentNode.replaceChild(frag, node);
    });
  }

  // The renderer draws asynchronously and again when sections expand: tidy after each change, coalesced.
  var pending = false;
  new MutationObserver(function () {
    if (pending) return;
    pending = true;
    requestAnimationFrame(function () {
      pending = false;
      tidy();
    });
  }).observe(root, { childList: true, subtree: true });
})();
