// Applies the stored theme and language before the first paint (no light flash in dark mode), and gives the app
// shell of index.html the system name and logo React's first render will show (the cached status, else the default).
// A file rather than an inline script: the console's Content-Security-Policy allows scripts from the site only.
(function () {
  try {
    var mode = localStorage.getItem('theme-mode') === 'dark' ? 'dark' : 'light';
    document.documentElement.dataset.theme = mode;
    document.documentElement.style.background = mode === 'dark' ? '#0b0d12' : '#f5f7fb';
    document.documentElement.lang = localStorage.getItem('i18nextLng') === 'en' ? 'en' : 'zh';
    var status = JSON.parse(localStorage.getItem('status') || 'null');
    if (status && status.system_name) document.title = status.system_name;
    var css = function (s) {
      return (
        '"' +
        String(s)
          .replace(/[\\"]/g, '\\$&')
          .replace(/[\n\r\f]/g, ' ') +
        '"'
      );
    };
    var root = document.documentElement.style;
    if (status && status.system_name) root.setProperty('--tw-boot-name', css(status.system_name));
    if (status && status.logo) root.setProperty('--tw-boot-logo', 'url(' + css(status.logo) + ')');
    // The sign-in pages open on a centred card: the shell shows its frame there only.
    if (/^\/(login|register|reset|user\/reset)(\/|$)/.test(location.pathname))
      document.documentElement.dataset.boot = 'auth';
  } catch (e) {}
})();
