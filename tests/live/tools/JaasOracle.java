// Reads JSON-less input: one case per line, the sasl.jaas.config text with \n, \r and \\ escaped.
// Prints, per case, the result of Kafka's own JaasConfig parser (package-private, reached by reflection).
import java.io.*;
import java.lang.reflect.*;
import java.nio.charset.StandardCharsets;
import java.util.*;
import javax.security.auth.login.AppConfigurationEntry;

public class JaasOracle {
    static String unescape(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 1 < s.length()) {
                char n = s.charAt(++i);
                if (n == 'n') b.append('\n'); else if (n == 'r') b.append('\r'); else if (n == 'u') { b.append((char) Integer.parseInt(s.substring(i + 1, i + 5), 16)); i += 4; } else b.append(n);
            } else b.append(c);
        }
        return b.toString();
    }
    static String escape(String s) {
        StringBuilder b = new StringBuilder();
        for (char c : s.toCharArray()) {
            if (c == '\\') b.append("\\\\"); else if (c == '\n') b.append("\\n"); else if (c == '\r') b.append("\\r");
            else if (c == '\t') b.append("\\t"); else if (c < 0x20 || c > 0x7e) b.append(String.format("\\u%04x", (int) c)); else b.append(c);
        }
        return b.toString();
    }
    public static void main(String[] args) throws Exception {
        Class<?> cls = Class.forName("org.apache.kafka.common.security.JaasConfig");
        Constructor<?> ctor = cls.getDeclaredConstructor(String.class, String.class);
        ctor.setAccessible(true);
        Method entriesOf = cls.getMethod("getAppConfigurationEntry", String.class);
        entriesOf.setAccessible(true);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, true, "UTF-8");
        String line;
        while ((line = in.readLine()) != null) {
            String text = unescape(line);
            try {
                Object cfg = ctor.newInstance("ctx", text);
                AppConfigurationEntry[] entries = (AppConfigurationEntry[]) entriesOf.invoke(cfg, "ctx");
                StringBuilder b = new StringBuilder("OK");
                for (AppConfigurationEntry e : entries) {
                    b.append("\t").append(escape(e.getLoginModuleName())).append("\t").append(e.getControlFlag().toString().replace("LoginModuleControlFlag: ", "").toUpperCase());
                    TreeMap<String, Object> opts = new TreeMap<>(e.getOptions());
                    b.append("\t").append(opts.size());
                    for (Map.Entry<String, Object> o : opts.entrySet()) b.append("\t").append(escape(o.getKey())).append("\t").append(escape(String.valueOf(o.getValue())));
                }
                out.println(b);
            } catch (InvocationTargetException ex) {
                Throwable t = ex.getCause();
                out.println("ERR\t" + t.getClass().getSimpleName() + "\t" + escape(String.valueOf(t.getMessage())));
            }
        }
    }
}
