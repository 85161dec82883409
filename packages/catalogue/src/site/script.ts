/**
 * The site's script, inlined into the page: plain browser JavaScript (no
 * modules, no requests). It reads the inlined catalogue data and shows the
 * connectors that match the search and the filters, opens the card an address
 * names, and copies example commands.
 */
export const SCRIPT = `
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('catalogue-data').textContent);
  var search = document.getElementById('search');
  var category = document.getElementById('filter-category');
  var direction = document.getElementById('filter-direction');
  var approval = document.getElementById('filter-approval');
  var billable = document.getElementById('filter-billable');
  var count = document.getElementById('result-count');
  var empty = document.getElementById('empty');
  var index = data.connectors.map(function (entry) {
    var words = [entry.key, entry.name, entry.vendor || '', entry.summary, entry.category, entry.categoryLabel, entry.status, entry.package || '']
      .concat(entry.limitations)
      .concat(Object.keys(entry.dataTypes || {}));
    entry.operations.forEach(function (operation) {
      words.push(operation.key, operation.label, operation.description || '', operation.entity || '');
    });
    return {
      key: entry.key,
      text: words.join('\\n').toLowerCase(),
      category: entry.category,
      modes: entry.operations.map(function (operation) { return operation.mode; }),
      approval: entry.operations.some(function (operation) { return operation.approvalRequired; }),
      billable: entry.operations.some(function (operation) { return operation.billable === true; }),
      element: document.querySelector('li.connector[data-key="' + CSS.escape(entry.key) + '"]'),
    };
  });
  function matches(item, terms) {
    if (category.value && item.category !== category.value) return false;
    if (direction.value && item.modes.indexOf(direction.value) < 0) return false;
    if (approval.checked && !item.approval) return false;
    if (billable.checked && !item.billable) return false;
    return terms.every(function (term) { return item.text.indexOf(term) >= 0; });
  }
  function update() {
    var terms = search.value.toLowerCase().split(/\\s+/).filter(Boolean);
    var shown = 0;
    index.forEach(function (item) {
      var visible = matches(item, terms);
      if (item.element) item.element.hidden = !visible;
      if (visible) shown += 1;
    });
    count.textContent = shown + ' of ' + index.length + ' connector' + (index.length === 1 ? '' : 's');
    empty.hidden = shown !== 0;
    document.body.setAttribute('data-shown', String(shown));
  }
  [search, category, direction, approval, billable].forEach(function (control) {
    control.addEventListener('input', update);
    control.addEventListener('change', update);
  });
  update();

  // One address per connector: #connector-<key> (or an anchor inside a card) opens that card.
  function openFromAddress() {
    var id = decodeURIComponent(location.hash.slice(1));
    var target = id ? document.getElementById(id) : null;
    var card = target ? target.closest('li.connector') : null;
    if (!card) return;
    var details = card.querySelector(':scope > details');
    if (details && !details.open) details.open = true;
    target.scrollIntoView();
  }
  document.querySelectorAll('li.connector > details').forEach(function (details) {
    details.addEventListener('toggle', function () {
      var card = details.parentElement;
      var current = location.hash ? document.getElementById(decodeURIComponent(location.hash.slice(1))) : null;
      // Opening a card gives the page its address, unless the address already points inside it.
      if (details.open && !(current && card.contains(current))) history.pushState(null, '', '#' + card.id);
    });
  });
  window.addEventListener('hashchange', openFromAddress);
  window.addEventListener('popstate', openFromAddress);
  openFromAddress();

  // Copy buttons: the clipboard where the browser allows it, else the command selected for the reader.
  document.addEventListener('click', function (event) {
    var button = event.target.closest ? event.target.closest('button.copy') : null;
    if (!button) return;
    var text = button.getAttribute('data-copy');
    function done(word) {
      button.textContent = word;
      setTimeout(function () { button.textContent = 'Copy'; }, 1500);
    }
    function select() {
      var range = document.createRange();
      range.selectNodeContents(button.previousElementSibling);
      var selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      done('Selected');
    }
    if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(text).then(function () { done('Copied'); }, select);
    else select();
  });
})();
`;
