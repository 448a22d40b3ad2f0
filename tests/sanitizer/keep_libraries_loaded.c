/* For scripts/sanitize only (preloaded, built without sanitizers): dlclose does
 * nothing. Mesa loads its GL driver with dlopen and unloads it at eglTerminate;
 * LeakSanitizer reports at exit, when the driver's code is no longer mapped, so
 * its allocations would show as "<unknown module>" and no suppression could
 * name them. With the driver kept mapped they carry its library's name, and
 * lsan.supp suppresses exactly those (never fxsim's own code). */
int dlclose(void* handle) {
  (void)handle;
  return 0;
}
