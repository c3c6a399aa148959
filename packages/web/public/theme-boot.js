// Applies the stored theme and language before the first paint (no light flash in dark mode).
// A file rather than an inline script: the console's Content-Security-Policy allows scripts from the site only.
(function () {
  try {
    var mode = localStorage.getItem('theme-mode') === 'dark' ? 'dark' : 'light';
    document.documentElement.dataset.theme = mode;
    document.documentElement.style.background = mode === 'dark' ? '#0b0d12' : '#f5f7fb';
    document.documentElement.lang = localStorage.getItem('i18nextLng') === 'en' ? 'en' : 'zh';
    var status = JSON.parse(localStorage.getItem('status') || 'null');
    if (status && status.system_name) document.title = status.system_name;
  } catch (e) {}
})();
