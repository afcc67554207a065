import Glibc
import VitrineCore
import VitrineHEIF
import VitrineRuntime
import VitrineSandboxHelper
import VitrineSystem

/// The decoding helper: `vitrine decode-helper`, started by the kiosk's
/// `DecodePool` with its socket as descriptor 3. It confines itself
/// (`HelperConfinement`), says whether that worked, then serves one job at
/// a time until the kiosk closes the socket or it has served its share.
///
/// It is the same executable as the kiosk, started again, rather than a
/// program of its own: the two always come from one package version, so the
/// message layout cannot differ between them after an upgrade replaced one.
public enum DecodeHelper {
    public static func serve(limits: HelperLimits) -> Never {
        // libheif's decoders are plugins from 1.17 on (trixie): loaded before the filter forbids opening them.
        HelperHello.confineAndSayHello(limits, prepare: HEIFDecoder.prepareLibrary)
        for _ in 0..<HelperLimits.decodesPerHelper {
            let message: (bytes: [UInt8], descriptors: [Int32])?
            do {
                message = try DescriptorPassing.receive(HelperHello.socket, limit: 64 << 10, maxDescriptors: DecodeJob.descriptorLimit)
            } catch {
                exit(1)
            }
            // The kiosk closed its end: nothing more to do.
            guard let message else { exit(0) }
            let reply = answer(message.bytes, descriptors: message.descriptors)
            for descriptor in message.descriptors { close(descriptor) }
            guard (try? DescriptorPassing.send(HelperHello.socket, reply.encoded)) != nil else { exit(1) }
            MemoryPolicy.returnFreedMemory()
        }
        exit(0)
    }

    static func answer(_ bytes: [UInt8], descriptors: [Int32]) -> DecodeReply {
        let job: DecodeJob
        do {
            job = try DecodeJob(decoding: bytes)
        } catch {
            return .refused(.undecodable, message: "\(error)")
        }
        guard let input = descriptors.first else { return .refused(.undecodable, message: "no picture was handed over") }
        return DecodeWork.run(job, input: input, buffers: Array(descriptors.dropFirst()))
    }
}
