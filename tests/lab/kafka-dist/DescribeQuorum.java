// DescribeQuorum CONTROLLER_HOST:PORT - print the KRaft quorum as Kafka's Admin client sees it, one fact a line:
//   leader <id> epoch <n> / voter <id> / observer <id> / node <id> <endpoints>
// Run by the lab's tests with `java -cp <kafka libs>/* DescribeQuorum.java HOST:PORT` (Java 11+ runs a single
// source file directly); what `kafka-metadata-quorum describe --status` shows, from kafka-clients alone, since
// Maven Central has no kafka-tools for every release the lab runs.
import java.util.*;
import org.apache.kafka.clients.admin.*;

public class DescribeQuorum {
    public static void main(String[] args) throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.controllers", args[0]);
        p.put("request.timeout.ms", "5000");
        p.put("default.api.timeout.ms", "8000");
        try (Admin admin = Admin.create(p)) {
            QuorumInfo q = admin.describeMetadataQuorum().quorumInfo().get();
            System.out.println("leader " + q.leaderId() + " epoch " + q.leaderEpoch());
            for (QuorumInfo.ReplicaState v : q.voters())
                System.out.println("voter " + v.replicaId());
            for (QuorumInfo.ReplicaState v : q.observers())
                System.out.println("observer " + v.replicaId());
            for (Map.Entry<Integer, QuorumInfo.Node> e : q.nodes().entrySet())
                System.out.println("node " + e.getKey() + " " + e.getValue().endpoints());
        }
    }
}
