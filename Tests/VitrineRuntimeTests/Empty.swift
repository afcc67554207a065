// placeholder for build
