// libyaml's event parser (libyaml-0-2), for VitrineYAML only.
#include <yaml.h>
