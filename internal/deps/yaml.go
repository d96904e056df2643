package deps
import _ "gopkg.in/yaml.v3"
