// What Kafka's own classes make of principal names: kafka-clients' SslPrincipalMapper and
// KerberosShortNamer, the rules read as the broker reads them (java.util.Properties, the
// listener-prefixed key first, ConfigDef's LIST parsing for Kerberos). Used to record the outcomes
// in tests/realworld/principal/cases.toml:
//   javac -cp kafka-clients.jar MappingOracle.java
//   java -cp kafka-clients.jar:slf4j-api.jar:. MappingOracle tls|kerberos rules:VALUE|props:FILE[:LISTENER] REALM NAME|cert:FILE...
import java.io.FileInputStream;
import java.io.InputStream;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.security.kerberos.KerberosName;
import org.apache.kafka.common.security.kerberos.KerberosShortNamer;
import org.apache.kafka.common.security.ssl.SslPrincipalMapper;

public class MappingOracle {
    public static void main(String[] a) throws Exception {
        String kind = a[0], source = a[1], realm = a[2];
        String key = kind.equals("tls") ? "ssl.principal.mapping.rules" : "sasl.kerberos.principal.to.local.rules";
        String value;
        if (source.startsWith("rules:")) {
            value = source.substring(6);
        } else {
            String[] f = source.substring(6).split(":", 2);
            Properties p = new Properties();
            try (InputStream in = new FileInputStream(f[0])) { p.load(in); }  // Utils.loadProps
            value = null;
            if (f.length > 1) value = p.getProperty("listener.name." + f[1].toLowerCase() + "." + key);
            if (value == null) value = p.getProperty(key);
        }
        List<String> names = new ArrayList<>();
        for (int i = 3; i < a.length; i++) {
            if (a[i].startsWith("cert:")) {
                try (InputStream in = new FileInputStream(a[i].substring(5))) {
                    for (Object c : CertificateFactory.getInstance("X.509").generateCertificates(in))
                        names.add(((X509Certificate) c).getSubjectX500Principal().getName());
                }
            } else names.add(a[i]);
        }
        try {
            if (kind.equals("tls")) {
                SslPrincipalMapper m = SslPrincipalMapper.fromRules(value == null ? "DEFAULT" : value);
                System.out.println("mapper: " + m);
                for (String n : names) {
                    try { System.out.println(n + " -> " + m.getName(n)); }
                    catch (Exception e) { System.out.println(n + " -> " + e.getClass().getName() + ": " + e.getMessage()); }
                }
            } else {
                @SuppressWarnings("unchecked")
                List<String> rules = value == null ? null : (List<String>) ConfigDef.parseType(key, value, ConfigDef.Type.LIST);
                KerberosShortNamer m = KerberosShortNamer.fromUnparsedRules(realm, rules);
                System.out.println("namer: " + m);
                for (String n : names) {
                    try { System.out.println(n + " -> " + m.shortName(KerberosName.parse(n))); }
                    catch (Exception e) { System.out.println(n + " -> " + e.getClass().getName() + ": " + e.getMessage()); }
                }
            }
        } catch (Exception e) {
            System.out.println("rules refused: " + e.getClass().getName() + ": " + e.getMessage());
        }
    }
}
